"""Helper for apply_throughput.py: apply a desired-state file through kafkactl's library and time the apply
step alone (phases and their confirmed barriers), excluding interpreter start, file loading and the plan."""

import sys
import time

from kafkactl.desired.apply import apply
from kafkactl.desired.formats import read_state
from kafkactl.desired.plan import Guards, make_plan
from kafkactl.desired.targets import resolve_targets
from kafkactl.profiles import Selection

target = resolve_targets(["local-admin"], [], Selection(timeout=120))[0]
gw = target.gateway()
plan = make_plan([(target.name, gw, target.profile.super_users)], read_state([sys.argv[1]]), Guards())
t = time.perf_counter()
apply(plan, {target.name: gw})
print(f"RESULT {time.perf_counter() - t:.3f} {plan.changes}")
