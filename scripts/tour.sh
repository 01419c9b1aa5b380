#!/usr/bin/env bash
# A short tour of kafkactl against the local sandbox. Run through `make demo`.
set -euo pipefail
TOUR_DIR="${TOUR_DIR:-$(mktemp -d -t kafkactl-tour.XXXXXX)}"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run()  { step "$*"; "$@"; }
try()  { step "$*"; set +e; "$@"; local rc=$?; set -e; printf '(exit code %s)\n' "$rc"; }

run kafkactl --version
run kafkactl local up
run kafkactl context list
run kafkactl --context local-admin cluster describe
try kafkactl --context local-admin topics create tour.orders --partitions 3 --config retention.ms=86400000
run kafkactl --context local-admin topics list
step "kafkactl --context local-admin -o json topics list | python3 -c '...names...'"
kafkactl --context local-admin -o json topics list | python3 -c 'import json,sys; print([t["name"] for t in json.load(sys.stdin)])'
try kafkactl --context local-alice topics list
try kafkactl --context local-alice topics create tour.alice
try kafkactl -b 127.0.0.1:1 --timeout 2 topics list
step "# ACLs: alice may read every topic starting with tour."
run kafkactl --context local-admin acls create --allow-principal User:alice --operation Read --topic tour. --resource-pattern-type prefixed
run kafkactl --context local-alice topics list
run kafkactl --context local-admin acls list --topic tour.orders --resource-pattern-type match
step "# KIP-430: what may each principal do?"
run kafkactl --context local-admin -o table cluster describe --authorized-ops
run kafkactl --context local-alice -o table topics describe --authorized-ops
run kafkactl --context local-alice -o json auth whoami
try kafkactl --context local-carol groups list
try kafkactl --context local-admin acls create --allow-principal User:alice --operation Wirte --topic tour.orders
try kafkactl --context local-admin acls create --allow-principal User:alice --operation Write --group tour
step "# a delete lists what it would remove; filters that match every ACL of the cluster (on a fresh sandbox, the one above) need --all"
try kafkactl --context local-admin acls delete --principal User:alice --topic tour. --resource-pattern-type prefixed --dry-run
step "# configs, as kafka-configs.sh"
run kafkactl --context local-admin configs alter --topic tour.orders --add-config 'retention.ms=86400000,cleanup.policy=[compact,delete]'
run kafkactl --context local-admin configs describe --topic tour.orders
run kafkactl --context local-admin configs list --entity-type topics --verbose
try kafkactl --context local-alice configs list
run kafkactl --context local-admin configs delete --topic tour.orders retention.ms cleanup.policy
step "# desired-state ACLs: about 50,000 bindings for four teams, planned, then applied on local Spark"
python3 scripts/gen_desired.py --teams 4 --apps 25 --topics 500 > "$TOUR_DIR/teams.jsonl"
printf '%s bindings in %s\n' "$(($(wc -l < "$TOUR_DIR/teams.jsonl") - 1))" "$TOUR_DIR/teams.jsonl"
run kafkactl --context local-admin --timeout 60 -o table acls plan "$TOUR_DIR/teams.jsonl" --limit 10 --out "$TOUR_DIR/plan"
run kafkactl --context local-admin --timeout 60 acls apply "$TOUR_DIR/teams.jsonl" --spark --yes --report "$TOUR_DIR/report.jsonl"
try kafkactl --context local-admin --timeout 60 acls plan "$TOUR_DIR/teams.jsonl" --detailed-exitcode
step "# what may one team's principal (User:teama-app-1) do now? (as that user, via KIP-430)"
PW="tour-$(python3 -c 'import secrets; print(secrets.token_urlsafe(12))')"
kafkactl --context local-admin configs alter --user teama-app-1 --add-config "SCRAM-SHA-512=[password=$PW]" > /dev/null
for t in teama.t0000 teama.t0001 teamb.t0000; do kafkactl --context local-admin topics create "$t" > /dev/null 2>&1 || true; done
umask 077
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="teama-app-1" password="%s";\n' "$PW" > "$TOUR_DIR/teama-app-1.properties"
run kafkactl -b "$(kafkactl -o json local status | python3 -c 'import json,sys; print(json.load(sys.stdin)["bootstrap_servers"])')" --command-config "$TOUR_DIR/teama-app-1.properties" -o table auth whoami
run kafkactl local status
run kafkactl local env --user alice
printf '\nThe sandbox keeps running: kafkactl local down stops it and keeps its data (--purge deletes it).\n'
