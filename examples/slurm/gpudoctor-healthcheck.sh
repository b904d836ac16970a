#!/bin/sh
# A Slurm HealthCheckProgram that drains a node gpudoctor finds broken, and resumes it once healthy.
#
# slurm.conf:
#   HealthCheckProgram=/etc/slurm/gpudoctor-healthcheck.sh
#   HealthCheckInterval=600
#   HealthCheckNodeState=IDLE          # run on idle nodes only: the torch probe initialises CUDA
#
# Slurm ignores the exit status once slurmd has registered and kills the program after 60 s, so this
# script drains the node itself and always exits 0 (at start-up slurmd waits for a 0).
# GPUDOCTOR: gpudoctor in an environment of its own; GPUDOCTOR_PYTHON: the interpreter jobs use.
set -u
GPUDOCTOR=${GPUDOCTOR:-/opt/gpudoctor/bin/gpudoctor}
GPUDOCTOR_PYTHON=${GPUDOCTOR_PYTHON:-python3}
STATE=${GPUDOCTOR_STATE:-/run/gpudoctor}
SCONTROL=${SCONTROL:-scontrol}
node=$(hostname -s)
mkdir -p "$STATE" || exit 0

# A probe that cannot run is not a reason to drain: keep the node and the previous verdict.
"$GPUDOCTOR" facts --python "$GPUDOCTOR_PYTHON" --node-name "$node" --timeout 40 -o "$STATE/facts.json" \
  2>"$STATE/facts.err" || exit 0

"$GPUDOCTOR" diagnose "$STATE/facts.json" --drain-list "$STATE/drain.tsv" --format json -o "$STATE/report.json" \
  2>"$STATE/diagnose.err"
status=$?

if [ "$status" -eq 1 ]; then
  reason=$(cut -f2 "$STATE/drain.tsv" | head -n 1)
  if [ -n "$reason" ]; then
    "$SCONTROL" update NodeName="$node" State=DRAIN Reason="$reason"
  fi
elif [ "$status" -eq 0 ]; then
  # resume the node only if gpudoctor drained it: other reasons belong to other tools and people
  if "$SCONTROL" show node "$node" -o 2>/dev/null | grep -q 'Reason=gpudoctor:'; then
    "$SCONTROL" update NodeName="$node" State=RESUME
  fi
fi
exit 0
