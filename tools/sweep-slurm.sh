#!/bin/sh
# sweep-slurm.sh: one shard of a tcpsim sweep per Slurm job-array task.
#
#   sbatch --array=1-16 --cpus-per-task=4 tools/sweep-slurm.sh FILE.cfg OUT.csv SWEEP-ARGS...
#   tools/sweep-slurm.sh --merge OUT.csv        (after the array has finished)
#
# Task K of N (K = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1,
# N = SLURM_ARRAY_TASK_COUNT) runs
#     tcpsim sweep FILE.cfg SWEEP-ARGS --shard K/N --resume -j CPUS -o OUT.shard-K-of-N.csv
# with CPUS = SLURM_CPUS_PER_TASK (default 1).  --resume makes a requeued
# or re-submitted task finish only its missing rows.  Shard files go beside
# OUT.csv, so OUT.csv's directory must be on a file system every node sees.
#
# Merge, once every task has succeeded, either by hand:
#     tools/sweep-slurm.sh --merge OUT.csv
# or as a dependent job:
#     jid=$(sbatch --parsable --array=1-16 tools/sweep-slurm.sh base.cfg out.csv --vary ...)
#     sbatch --dependency=afterok:$jid --wrap "tools/sweep-slurm.sh --merge out.csv"
# The merge checks that the shards are one sweep and that every point is
# there exactly once, and writes OUT.csv and OUT.csv.cfg as one machine would.
#
# tcpsim: $TCPSIM, else ./tcpsim in the submit directory (sbatch copies this
# script away, so its own location says nothing), else tcpsim on PATH.
#
#SBATCH --job-name=tcpsim-sweep
#SBATCH --output=tcpsim-sweep-%A_%a.log
set -eu

die() { echo "sweep-slurm: $*" >&2; exit 2; }

tcpsim=${TCPSIM:-}
if [ -z "$tcpsim" ]; then
	if [ -x "${SLURM_SUBMIT_DIR:-.}/tcpsim" ]; then tcpsim="${SLURM_SUBMIT_DIR:-.}/tcpsim"
	else tcpsim=$(command -v tcpsim || true); fi
fi
[ -n "$tcpsim" ] && [ -x "$tcpsim" ] || die "cannot find tcpsim (set TCPSIM=/path/to/tcpsim)"

if [ "${1:-}" = "--merge" ]; then
	[ $# -eq 2 ] || die "usage: sweep-slurm.sh --merge OUT.csv"
	out=$2
	base=${out%.csv}
	# the shard count is in the names; all of one N must be there
	first=$(ls "$base".shard-1-of-*.csv 2>/dev/null | head -n 1)
	[ -n "$first" ] || die "no shard files $base.shard-K-of-N.csv"
	n=${first##*-of-}
	n=${n%.csv}
	set --
	k=1
	while [ "$k" -le "$n" ]; do
		f="$base.shard-$k-of-$n.csv"
		[ -f "$f" ] || die "missing $f (did task $k fail?)"
		set -- "$@" "$f"
		k=$((k + 1))
	done
	exec "$tcpsim" sweep --merge -o "$out" "$@"
fi

[ $# -ge 2 ] || die "usage: sbatch --array=1-N sweep-slurm.sh FILE.cfg OUT.csv SWEEP-ARGS..."
[ -n "${SLURM_ARRAY_TASK_ID:-}" ] && [ -n "${SLURM_ARRAY_TASK_COUNT:-}" ] ||
	die "not a job-array task (submit with sbatch --array=1-N)"
cfg=$1
out=$2
shift 2
k=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-1} + 1))
n=$SLURM_ARRAY_TASK_COUNT
[ "$k" -ge 1 ] && [ "$k" -le "$n" ] ||
	die "array task $SLURM_ARRAY_TASK_ID is not 1..$n above SLURM_ARRAY_TASK_MIN (use a contiguous --array=A-B)"
exec "$tcpsim" sweep "$cfg" --shard "$k/$n" --resume -j "${SLURM_CPUS_PER_TASK:-1}" \
	-o "${out%.csv}.shard-$k-of-$n.csv" "$@"
