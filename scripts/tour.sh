#!/usr/bin/env bash
# A short tour of kafkactl against the local sandbox. Run through `make demo`.
set -euo pipefail

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
run kafkactl local status
run kafkactl local env --user alice
printf '\nThe sandbox keeps running: kafkactl local down stops it (--keep keeps its data).\n'
