"""The 22 TPC-H queries on two held clusters, alternately: A/B medians per query, their ratio and
totals, and (given the server's process id) the CPU each query used per wall-clock second.

For two binaries, or one thread against two, without the peers and with more rounds than
`tpch.py --threads` (whose per-query medians of three runs move by a fifth between runs on this
machine). Start each cluster with `tpch_joins.py --sf 1 --hold` (it prints the broker URL and the
server's pid); a one-thread cluster on one core:
    RAYON_NUM_THREADS=1 taskset -c 0 benches/.venv-peers/bin/python benches/peer/tpch_joins.py --hold
    RAYON_NUM_THREADS=2 TESSERA_BIN=… benches/.venv-peers/bin/python benches/peer/tpch_joins.py --hold
then
    benches/.venv-peers/bin/python benches/peer/tpch_ab.py A_BROKER B_BROKER [--rounds 9]
        [--queries 1,2,3] [--pids A_PID,B_PID]
Each round runs the whole set on A, then on B (after one warm-up run of each query), so each
cluster runs its queries back to back; the medians are over the rounds. `--interleave query`
runs each query on A then on B instead, as `tpch.py` does, and `--pause S` idles after each run.
Both make a two-thread cluster on this 2-vCPU virtual machine pay for its idle second vCPU: a
query arriving after an idle gap wakes pool threads whose vCPU the host has descheduled (Q16 at
two threads: 35 ms back to back, 40 ms after 2 ms idle, 51 ms after 0.2 s; a one-thread cluster
on one core is unchanged), so A/B falls from ~1.5 to ~1.4 (per query) and ~1.25 (0.2 s pauses).
With `--pids`, each query then runs eight more times per cluster, timed together with
the process's CPU time from /proc (user + system), and `cpu/wall` is printed: 1.0 is one core
busy for the whole query.
"""
import argparse, json, os, statistics, sys, time, urllib.request

from check_tpch import queries

OPTIONS = ("useMultistageEngine=true;timeoutMs=600000;maxRowsInJoin=100000000;maxRowsInWindow=100000000;"
           "numGroupsLimit=100000000")


def run(broker, sql):
    """Runs `sql` through the broker; the wall-clock ms (the answer read, not parsed)."""
    body = json.dumps({"sql": sql, "queryOptions": OPTIONS}).encode()
    started = time.perf_counter()
    req = urllib.request.Request(broker + "/query/sql", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        r.read()
    return (time.perf_counter() - started) * 1000


def cpu_seconds(pid):
    """User + system CPU seconds of process `pid` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def utilization(broker, pid, sql, n=8):
    """CPU seconds per wall second over `n` runs of `sql`."""
    c0, t0 = cpu_seconds(pid), time.perf_counter()
    for _ in range(n):
        run(broker, sql)
    return (cpu_seconds(pid) - c0) / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--queries", default="", help="comma-separated query numbers (default: all 22)")
    ap.add_argument("--pids", default="", help="A_PID,B_PID: also print CPU per wall second")
    ap.add_argument("--sf", default="1")
    ap.add_argument("--pause", type=float, default=0.0, help="seconds idle after each run")
    ap.add_argument("--interleave", choices=["round", "query"], default="round",
                    help="alternate the clusters every round of the set (default) or every query")
    args = ap.parse_args()
    sqls = queries(float(args.sf))
    wanted = [int(q) for q in args.queries.split(",") if q] or sorted(sqls)
    def timed(broker, sql):
        ms = run(broker, sql)
        time.sleep(args.pause)
        return ms

    for q in wanted:
        timed(args.a, sqls[q])
        timed(args.b, sqls[q])
    times = {q: ([], []) for q in wanted}
    for _ in range(args.rounds):
        if args.interleave == "query":
            for q in wanted:
                times[q][0].append(timed(args.a, sqls[q]))
                times[q][1].append(timed(args.b, sqls[q]))
        else:
            for side, broker in enumerate((args.a, args.b)):
                for q in wanted:
                    times[q][side].append(timed(broker, sqls[q]))
    pids = [int(p) for p in args.pids.split(",") if p]
    total_a = total_b = 0.0
    print(f"{'query':<6}{'A ms':>9}{'B ms':>9}{'A/B':>7}" + ("   A cpu/wall  B cpu/wall" if pids else ""))
    for q in wanted:
        a, b = statistics.median(times[q][0]), statistics.median(times[q][1])
        total_a += a
        total_b += b
        line = f"Q{q:<5}{a:9.1f}{b:9.1f}{a / b:7.2f}"
        if len(pids) == 2:
            ua = utilization(args.a, pids[0], sqls[q])
            ub = utilization(args.b, pids[1], sqls[q])
            line += f"{ua:13.2f}{ub:12.2f}"
        print(line, flush=True)
    print(f"total A {total_a:.0f} ms, B {total_b:.0f} ms: A/B {total_a / total_b:.2f} "
          f"({args.rounds} rounds alternating by {args.interleave}, pause {args.pause} s, medians)")


if __name__ == "__main__":
    sys.exit(main())
