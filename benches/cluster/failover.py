#!/usr/bin/env python3
"""Figures for many machines: failover and routing-change latency, on ZooKeeper and on the
embedded store, each measured over N rounds through HTTP on separate `tessera start` processes.

  python3 benches/cluster/failover.py [--rounds 5] [--session-ms 10000] [--bin target/release/tessera]

Needs Debian's ZooKeeper (scripts/get-zookeeper.sh); started here on 127.0.0.1, stopped by PID.

* routing change: a segment upload answered by the controller → the first broker query that
  counts its rows (the broker is not polled: it learns through the push, and on ZooKeeper the
  watch);
* write failover: kill -9 of the leading controller → the first write the other one accepts;
* leader failover: kill -9 of the leader → the other controller logs that it leads (bounded by
  the ZooKeeper session timeout).
"""
import argparse, io, json, os, random, shutil, signal, socket, statistics, subprocess, sys
import tarfile, tempfile, time, urllib.request, urllib.error

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def http(method, url, body=None, ctype="application/json"):
    req = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        req.add_header("Content-Type", ctype)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (urllib.error.URLError, ConnectionError, socket.timeout) as e:
        return 0, str(e).encode()


def start_zookeeper(work):
    port = free_port()
    os.makedirs(f"{work}/zk", exist_ok=True)
    with open(f"{work}/zk/zoo.cfg", "w") as f:
        f.write(f"tickTime=200\ndataDir={work}/zk/data\nclientPort={port}\n"
                "clientPortAddress=127.0.0.1\nadmin.enableServer=false\n"
                "4lw.commands.whitelist=ruok\nmaxSessionTimeout=60000\n")
    proc = subprocess.Popen(
        ["java", "-Xmx256m", "-cp", "/etc/zookeeper/conf:/usr/share/java/zookeeper.jar",
         "org.apache.zookeeper.server.quorum.QuorumPeerMain", f"{work}/zk/zoo.cfg"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=1)
            s.send(b"ruok")
            if s.recv(4) == b"imok":
                return proc, f"127.0.0.1:{port}"
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit("ZooKeeper did not start")


class Role:
    def __init__(self, binary, role, data, extra):
        args = [binary, "start", "--roles", role, f"--{role}-port", "0", "--data-dir", data,
                "--no-log-stderr", "--heartbeat-ms", "1000"] + extra
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)
        line = self.proc.stdout.readline().split()
        self.url = line[1]
        self.data = data

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def segment_archive(binary, work, schema, table, name, rows):
    cols = [(f["name"], f["dataType"]) for key in
            ("dimensionFieldSpecs", "metricFieldSpecs", "dateTimeFieldSpecs")
            for f in schema.get(key, [])]
    with open(f"{work}/{name}.csv", "w") as f:
        f.write(",".join(c for c, _ in cols) + "\n")
        for i in range(rows):
            vals = []
            for c, t in cols:
                if t in ("INT", "LONG", "TIMESTAMP"):
                    vals.append(str(8000 + i if t != "TIMESTAMP" else 700000000000 + i))
                elif t in ("FLOAT", "DOUBLE"):
                    vals.append(str(1.5 + i))
                else:
                    vals.append(f"v{i % 7}")
            f.write(",".join(vals) + "\n")
    for k, v in (("schema", schema), ("table", table)):
        with open(f"{work}/{k}.json", "w") as f:
            json.dump(v, f)
    out = tempfile.mkdtemp(prefix=f"seg-{name}-", dir=work)
    subprocess.run([binary, "segment", "create", "--schema", f"{work}/schema.json",
                    "--table-config", f"{work}/table.json", "--input", f"{work}/{name}.csv",
                    "--out", out, "--segment-name", name], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(f"{out}/{name}", arcname=name)
    return buf.getvalue()


def multipart(name, data):
    boundary = "----tessera%016x" % random.getrandbits(64)
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; "
            f"filename=\"{name}.tar.gz\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def count(broker):
    st, body = http("POST", f"{broker}/query/sql",
                    json.dumps({"sql": "SELECT COUNT(*) FROM lineitem"}).encode())
    try:
        return json.loads(body)["resultTable"]["rows"][0][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def until(check, limit=60):
    t0 = time.perf_counter()
    while not check():
        if time.perf_counter() - t0 > limit:
            raise SystemExit("timed out")
        time.sleep(0.002)
    return time.perf_counter() - t0


def routing_rounds(binary, work, ctl, broker, rounds):
    subprocess.run([binary, "quickstart", "--load-into", ctl, "--segments", "1",
                    "--rows-per-segment", "1000"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    schema = json.loads(http("GET", f"{ctl}/schemas/lineitem")[1])
    table = json.loads(http("GET", f"{ctl}/tables/lineitem")[1])["OFFLINE"]
    until(lambda: count(broker) == 1000)
    total, out = 1000, []
    for r in range(rounds):
        name = f"lineitem_r{r}"
        archive = segment_archive(binary, work, schema, table, name, 10)
        body, ctype = multipart(name, archive)
        st, text = http("POST", f"{ctl}/segments?tableName=lineitem", body, ctype)
        assert st == 200, text
        total += 10
        out.append(until(lambda: count(broker) == total) * 1000)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--session-ms", type=int, default=10000)
    ap.add_argument("--bin", default=f"{ROOT}/target/release/tessera")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="tessera-failover-")
    zk, address = start_zookeeper(work)
    procs = []
    try:
        # Routing change on the embedded store: controller, broker, server as processes.
        c = Role(a.bin, "controller", f"{work}/e-c", [])
        b = Role(a.bin, "broker", f"{work}/e-b", ["--controller-url", c.url])
        s = Role(a.bin, "server", f"{work}/e-s", ["--controller-url", c.url])
        procs += [c, b, s]
        until(lambda: http("GET", f"{b.url}/health")[0] == 200)
        time.sleep(1.5)
        embedded = routing_rounds(a.bin, work, c.url, b.url, a.rounds)
        for p in (c, b, s):
            p.kill()

        # The same on ZooKeeper, then failovers.
        zkargs = ["--zk", address, "--cluster-name", "figures", "--zk-session-timeout-ms",
                  str(a.session_ms), "--deep-store", f"{work}/deep"]
        c1 = Role(a.bin, "controller", f"{work}/z-c1", zkargs)
        time.sleep(1)
        c2 = Role(a.bin, "controller", f"{work}/z-c2", zkargs)
        b = Role(a.bin, "broker", f"{work}/z-b", zkargs)
        s = Role(a.bin, "server", f"{work}/z-s", zkargs)
        procs += [c1, c2, b, s]
        time.sleep(1.5)
        on_zk = routing_rounds(a.bin, work, c2.url, b.url, a.rounds)

        writes, leads = [], []
        leader, other = c1, c2
        def leads_in(role):
            logs, n = f"{role.data}/logs", 0
            for f in os.listdir(logs):
                with open(f"{logs}/{f}", errors="replace") as fh:
                    n += fh.read().count("leads the cluster")
            return n

        for r in range(a.rounds):
            before = leads_in(other)
            leader.kill()
            schema = {"schemaName": f"edit_{r}",
                      "dimensionFieldSpecs": [{"name": "k", "dataType": "STRING"}]}
            t0 = time.perf_counter()
            writes.append(until(lambda: http("POST", f"{other.url}/schemas",
                                             json.dumps(schema).encode())[0] == 200) * 1000)
            until(lambda: leads_in(other) > before, limit=120)
            leads.append((time.perf_counter() - t0) * 1000)
            # The killed one restarts (and queues behind the new leader).
            data = leader.data
            leader = Role(a.bin, "controller", data, zkargs)
            procs.append(leader)
            leader, other = other, leader
            time.sleep(0.5)

        def line(label, xs):
            print(f"| {label} | {statistics.median(xs):.0f} ms | {min(xs):.0f}–{max(xs):.0f} ms |")
        print(f"\nrounds: {a.rounds}, ZooKeeper session timeout {a.session_ms} ms\n")
        print("| figure | median | range |\n|---|---|---|")
        line("routing change, embedded store (upload answered → first query that sees it)", embedded)
        line("routing change, ZooKeeper", on_zk)
        line("leader kill -9 → first write accepted by the other controller", writes)
        line("leader kill -9 → the other controller leads", leads)
    finally:
        for p in procs:
            if p.proc.poll() is None:
                p.kill()
        zk.send_signal(signal.SIGKILL)
        zk.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
