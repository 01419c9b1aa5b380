#!/usr/bin/env bash
# A short tour of kafkactl against the local sandbox. Run through `make demo`.
#   TOUR_KEEP=1          keep the tour's directory (its desired-state file, plan and report); said at the end
#   TOUR_TEAMS/APPS/TOPICS  the size of the desired state (4, 25, 500: about 50,000 bindings)
#   TOUR_SPARK           how it is applied (default --spark; empty: in-process)
set -euo pipefail
TOUR_DIR="$(mktemp -d -t kafkactl-tour.XXXXXX)"
PROPS="$TOUR_DIR/teama-app-1.properties"
# nothing the tour writes outlives it unless asked for; the file holding a password never does
finish() {
  rm -f "$PROPS"
  if [ -n "${TOUR_KEEP:-}" ]; then
    printf '\nkept %s (TOUR_KEEP): the desired state, the saved plan and the report of the tour\n' "$TOUR_DIR" >&2
  else
    rm -rf "$TOUR_DIR"
  fi
}
trap finish EXIT

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
python3 scripts/gen_desired.py --teams "${TOUR_TEAMS:-4}" --apps "${TOUR_APPS:-25}" --topics "${TOUR_TOPICS:-500}" \
  > "$TOUR_DIR/teams.jsonl"
printf '%s bindings in %s\n' "$(($(wc -l < "$TOUR_DIR/teams.jsonl") - 1))" "$TOUR_DIR/teams.jsonl"
run kafkactl --context local-admin --timeout 60 -o table acls plan "$TOUR_DIR/teams.jsonl" --limit 10 --out "$TOUR_DIR/plan"
run kafkactl --context local-admin --timeout 60 acls apply "$TOUR_DIR/teams.jsonl" ${TOUR_SPARK---spark} --yes --report "$TOUR_DIR/report.jsonl"
try kafkactl --context local-admin --timeout 60 acls plan "$TOUR_DIR/teams.jsonl" --detailed-exitcode
step "# what may one team's principal (User:teama-app-1) do now? (as that user, via KIP-430)"
PW="tour-$(python3 -c 'import secrets; print(secrets.token_urlsafe(12))')"
umask 077  # (the password goes through a file, never a command line)
printf 'SCRAM-SHA-512=[password=%s]\n' "$PW" > "$PROPS"
kafkactl --context local-admin configs alter --user teama-app-1 --add-config-file "$PROPS" > /dev/null
for t in teama.t0000 teama.t0001 teamb.t0000; do kafkactl --context local-admin topics create "$t" > /dev/null 2>&1 || true; done
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="teama-app-1" password="%s";\n' "$PW" > "$PROPS"
run kafkactl -b "$(kafkactl -o json local status | python3 -c 'import json,sys; print(json.load(sys.stdin)["bootstrap_servers"])')" --command-config "$PROPS" -o table auth whoami
rm -f "$PROPS"
run kafkactl local status
run kafkactl local env --user alice
printf '\nThe sandbox keeps running: kafkactl local down stops it and keeps its data (--purge deletes it).\n'
