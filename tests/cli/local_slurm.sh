#!/usr/bin/env bash
# A single-node Slurm on this machine for the Slurm test (test_cli_slurm.cpp), from Debian's slurm-wlm and munge:
#   local_slurm.sh start DIR   installs them if missing and possible (root and apt-get), starts munged, slurmctld
#                              and slurmd with their state, logs and slurm.conf in DIR, waits until the node is idle;
#                              prints "ok", or one line saying why Slurm cannot run here (exit 1)
#   local_slurm.sh stop DIR    stops the daemons started by `start DIR`
# Nothing outside DIR is touched except the package installation; ports are chosen from the caller's pid.
set -u
command=${1:?start or stop}; dir=${2:?directory}
if [ "$command" = stop ]; then
  for daemon in slurmd slurmctld munged; do
    [ -f "$dir/$daemon.pid" ] && kill "$(cat "$dir/$daemon.pid")" 2> /dev/null
  done
  exit 0
fi
if ! command -v slurmctld > /dev/null || ! command -v slurmd > /dev/null || ! command -v munged > /dev/null || ! command -v sbatch > /dev/null; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get > /dev/null; then
    echo "slurm-wlm is not installed and this user cannot install it (apt-get install slurm-wlm munge as root)"; exit 1
  fi
  if ! DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends slurm-wlm munge > "$dir.install.log" 2>&1; then
    echo "apt-get install slurm-wlm munge failed: $(tail -1 "$dir.install.log")"; exit 1
  fi
fi
mkdir -p "$dir"/state "$dir"/spool "$dir"/log "$dir"/munge
chmod 700 "$dir/munge"
host=$(hostname -s)
port=$((20000 + ($$ % 20000) * 2))
head -c 1024 /dev/urandom > "$dir/munge/munge.key" && chmod 400 "$dir/munge/munge.key"
if ! munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" --pid-file="$dir/munged.pid" \
     --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" -f > "$dir/log/munged.err" 2>&1; then
  echo "munged does not start: $(tail -1 "$dir/log/munged.err")"; exit 1
fi
user=$(id -un)
cat > "$dir/slurm.conf" << CONF
ClusterName=noiselearn-test
SlurmctldHost=$host
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF" > "$dir/log/slurmctld.err" 2>&1 || { echo "slurmctld does not start: $(tail -1 "$dir/log/slurmctld.err")"; exit 1; }
slurmd -f "$SLURM_CONF" > "$dir/log/slurmd.err" 2>&1 || { echo "slurmd does not start: $(tail -1 "$dir/log/slurmd.err")"; exit 1; }
state=""
for _ in $(seq 1 30); do
  state=$(sinfo -h -o %t 2> /dev/null)
  [ "$state" = idle ] && { echo ok; exit 0; }
  sleep 1
done
echo "the node is not idle after 30 s (state '$state'): $(tail -1 "$dir/log/slurmd.log" 2> /dev/null)"; exit 1
