#!/bin/sh
# Slurm HealthCheckProgram for plumb. slurm.conf takes a path without arguments, so this file
# holds them. slurmd runs it as root with an almost empty environment (SLURMD_NODENAME and PWD),
# so every path here is absolute and nothing depends on PATH or SLURM_CONF.
#
#   HealthCheckProgram=/etc/slurm/plumb-healthcheck.sh
#   HealthCheckInterval=300
#   HealthCheckNodeState=ANY,CYCLE
#
# plumb drains the node with Reason="plumb: <finding id>: <evidence>" on a failing finding and
# resumes it when the finding is gone; a node drained for any other reason is left alone.
# It stops itself after --budget seconds (default 45), before slurmd's 60 s limit.
# See docs/fleet-schedulers.md.
exec /usr/local/bin/plumb check --slurm \
  --slurm-conf /etc/slurm/slurm.conf \
  --scontrol /usr/bin/scontrol \
  --no-history \
  --skip l3.framework \
  --budget 45
