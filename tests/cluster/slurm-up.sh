#!/usr/bin/env bash
# Starts a single-node Slurm (munged, slurmctld, slurmd) on loopback, everything under DIR:
# config, generated munge key and socket, state, spool, logs, pid files. Prints the
# environment a client needs (SLURM_CONF=DIR/slurm.conf). Stop it with slurm-down.sh DIR.
# Exit 77 (ctest: skipped) when Slurm or munge is not installed or we are not root.
set -euo pipefail
dir=${1:?usage: slurm-up.sh DIR}
for tool in munged slurmctld slurmd sbatch sinfo; do
  command -v "$tool" >/dev/null || PATH=$PATH:/usr/sbin
  command -v "$tool" >/dev/null || { echo "slurm-up: $tool is not installed (apt-get install slurmctld slurmd munge slurm-client)" >&2; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "slurm-up: the daemons run as root (SlurmUser=root)" >&2; exit 77; }

mkdir -p "$dir"/{state,spool,log,run,munge}
dir=$(cd "$dir" && pwd)
chmod 700 "$dir/munge"
# A fresh key for this cluster only.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
       --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
       --seed-file="$dir/munge/munged.seed" --force

# Two free loopback ports for slurmctld and slurmd.
read -r ctldPort slurmdPort < <(python3 -c '
import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s)
cpus=$(nproc)
cat >"$dir/slurm.conf" <<CONF
# Single-node test cluster of PTO Studio (tests/cluster/slurm-up.sh); loopback only.
ClusterName=ptotest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctldPort
SlurmdPort=$slurmdPort
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
MaxArraySize=10001
NodeName=ptonode NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus State=UNKNOWN
PartitionName=pto Nodes=ptonode Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N ptonode
# Ready when the node is idle.
for _ in $(seq 1 60); do
  state=$(sinfo -h -N -o %T 2>/dev/null || true)
  if [ "$state" = idle ]; then echo "SLURM_CONF=$SLURM_CONF"; exit 0; fi
  sleep 0.5
done
echo "slurm-up: the node did not become idle (state '$state'); logs in $dir/log" >&2
tail -n 20 "$dir"/log/*.log >&2 || true
exit 1
