#!/usr/bin/env bash
# items.sh measures work items on NATS JetStream (MOD's sub-tables, the
# audit's local proofs and components): one generated job run in one
# process, then with --items-nats and 1, 2, 3 `argus worker`s on this
# machine, each taking one item at a time. It prints wall and CPU seconds
# (the host process and its plugins; the workers and the plugin processes
# they ran), the work items by kind, and checks that every run wrote the
# same protected table and the same report (report.json without its
# times and paths).
#
#   [METHOD=...] scripts/items/items.sh [SHAPE] [EXTRA ARGUS OPTIONS...]
#   scripts/items/items.sh t4.5xt4.5xt4.5 --param=MOD.subtable_master_solves=-1
#   METHOD='GH(100,0,1)' scripts/items/items.sh t4.11xt4.11xt4.11
#
# METHOD is the job's <SUPPRESS> method (default MOD(1,5,1,1,1)).
# Run from the repository root. Needs Go; builds argus, the plugins and a
# NATS server (github.com/nats-io/nats-server/v2, a module of go.mod) in a
# temporary directory. The figures depend on the machine and its load.
set -euo pipefail
shape=${1:-t4.5xt4.5xt4.5}
shift || true
extra=("$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/argus-items.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/bin/" ./host/cmd/argus
go build -o "$work/bin/plugins/" ./plugins/modular/argus-method-modular ./plugins/audit/argus-method-audit \
	./plugins/hypercube/argus-method-hypercube
go build -o "$work/nats-server" github.com/nats-io/nats-server/v2
argus=$work/bin/argus
mkdir -p "$work/job"
"$argus" generate -shape "$shape" -seed 1 -primary frac:0.05 -values micro -job "$work/job/t" -method "${METHOD:-MOD(1,5,1,1,1)}" >/dev/null

port=$((20000 + RANDOM % 20000))
"$work/nats-server" -js -a 127.0.0.1 -p "$port" -sd "$work/store" >"$work/nats.log" 2>&1 &
pids+=($!)
url=nats://127.0.0.1:$port
sleep 1

# cpu PID: user+system seconds of a process and its waited-for children.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14+$15+$16+$17)/hz}' "/proc/$1/stat"; }

# runjob NAME [OPTIONS]: runs the job in a copy; prints wall and CPU.
runjob() {
	local name=$1
	shift
	cp -r "$work/job" "$work/$name"
	(cd "$work/$name" && ARGUS_LOG_LEVEL=debug /usr/bin/time -f '%e %U %S' -o time.txt "$argus" t.arb log.txt "${extra[@]}" "$@" >/dev/null 2>err.txt) || {
		echo "run $name failed:"
		cat "$work/$name/err.txt"
		exit 1
	}
	read -r wall user sys <"$work/$name/time.txt"
	echo "$wall $(echo "$user + $sys" | bc)"
}

# report DIR: the run's report.json without its times (every figure
# named *seconds) and paths, and without the audit's effort (the LPs it
# solved, the primaries its local proofs proved rather than the audit of
# the whole table, for the colluding check too), which differ between two
# runs in one process on two threads as well.
report() {
	jq -S 'del(.started, .finished)
		| walk(if type == "object" then del(.file, .report, .view) | with_entries(select(.key | endswith("seconds") | not)) else . end)
		| walk(if type == "object" and has("mode") and has("figures") then .figures |= del(.lps, .local, .colluding_lps, .colluding_local) else . end)' "$1/t.report.json"
}

printf '%-22s %8s %10s %12s %s\n' run wall_s host_cpu_s workers_cpu_s identical
read -r wall hcpu <<<"$(runjob single)"
printf '%-22s %8s %10s %12s %s\n' single-process "$wall" "$hcpu" - -
for k in 1 2 3; do
	wp=()
	for i in $(seq "$k"); do
		"$argus" worker -nats "$url" -dir "$work/w$k.$i" -name "w$k.$i" >"$work/w$k.$i.log" 2>&1 &
		wp+=($!)
		pids+=($!)
	done
	sleep 1
	before=0
	for p in "${wp[@]}"; do before=$(echo "$before + $(cpu "$p")" | bc); done
	read -r wall hcpu <<<"$(runjob "q$k" "--items-nats=$url")"
	after=0
	for p in "${wp[@]}"; do after=$(echo "$after + $(cpu "$p")" | bc); done
	same=no
	cmp -s "$work/single/t-protected.txt" "$work/q$k/t-protected.txt" && cmp -s <(report "$work/single") <(report "$work/q$k") && same=yes
	printf '%-22s %8s %10s %12s %s\n' "queue, $k workers" "$wall" "$hcpu" "$(echo "$after - $before" | bc)" "$same"
	for p in "${wp[@]}"; do kill "$p"; wait "$p" 2>/dev/null || true; done
done
echo "work items per run, by kind:"
grep -h '"work items done"' "$work/q1/err.txt" | jq -r '"\(.kind) \(.items)"' | awk '{n[$1] += $2} END {for (k in n) print "  " k, n[k]}'
echo "the audit's logbook lines (one process):"
grep -i audit "$work/single/log.txt" | sed 's/^/  /' 
# The plugin process a worker starts per item, alone: 20 starts of the
# modular plugin with an empty payload of an unknown kind.
plugin=$work/bin/plugins/argus-method-modular
/usr/bin/time -f '%e %U %S' -o "$work/start.txt" bash -c "for i in \$(seq 20); do '$plugin' --item none </dev/null 2>/dev/null; done; true"
read -r wall user sys <"$work/start.txt"
echo "plugin process start per item: $(echo "scale=1; 1000 * $wall / 20" | bc) ms wall, $(echo "scale=1; 1000 * ($user + $sys) / 20" | bc) ms CPU"
