//! A cluster on [`Network`] hosts: a ZooKeeper ensemble (Debian's package, one node per host)
//! and `tessera start` roles, one per host, each on the host's own address with fixed ports
//! (so a role restarted after a kill is at the same address). Every process can be killed
//! (-9) and restarted, or stopped (SIGSTOP) and continued; each writes its stdout, stderr and
//! logs under its own directory, where [`Cluster::panics`] looks for panics.

use super::netns::{Killed, Network};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The ports every host uses for its one role.
pub const ZK_PORT: u16 = 2181;
pub const CONTROLLER_PORT: u16 = 9000;
pub const BROKER_PORT: u16 = 8099;
pub const SERVER_PORT: u16 = 8098;
pub const QUERY_PORT: u16 = 8421;
pub const KAFKA_PORT: u16 = 9092;

/// One process of the cluster: how to start it, and the running child.
struct Process {
    host: String,
    program: String,
    args: Vec<String>,
    dir: PathBuf,
    child: Option<Killed>,
    stopped: bool,
}

/// The processes of a cluster, by host name.
pub struct Cluster {
    processes: BTreeMap<String, Process>,
    /// `host:port,…` of the ensemble.
    pub zk: String,
}

impl Cluster {
    /// An empty cluster.
    pub fn new() -> Cluster {
        Cluster {
            processes: BTreeMap::new(),
            zk: String::new(),
        }
    }

    /// Starts a ZooKeeper node on each of `hosts` as one ensemble (the class path `cp`), and
    /// waits until each serves as leader or follower.
    pub fn start_ensemble(&mut self, net: &Network, hosts: &[&str], cp: &str, root: &Path) {
        let servers: String = hosts
            .iter()
            .enumerate()
            .map(|(i, h)| format!("server.{}={}:2888:3888\n", i + 1, net.address(h)))
            .collect();
        for (i, host) in hosts.iter().enumerate() {
            let dir = root.join(host);
            std::fs::create_dir_all(dir.join("data")).unwrap();
            std::fs::write(dir.join("data/myid"), format!("{}\n", i + 1)).unwrap();
            let cfg = format!(
                "tickTime=200\ninitLimit=20\nsyncLimit=5\ndataDir={}\nclientPort={ZK_PORT}\n\
                 clientPortAddress={}\nadmin.enableServer=false\n\
                 4lw.commands.whitelist=ruok,srvr\nminSessionTimeout=400\n\
                 maxSessionTimeout=60000\n{servers}",
                dir.join("data").display(),
                net.address(host),
            );
            std::fs::write(dir.join("zoo.cfg"), cfg).unwrap();
            let cfg_path = dir.join("zoo.cfg").to_string_lossy().into_owned();
            let args = [
                "-Xmx160m",
                "-cp",
                cp,
                "-Dzookeeper.root.logger=WARN,CONSOLE",
                "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                &cfg_path,
            ];
            self.add(net, host, "java", &args, &dir);
        }
        self.zk = zk_address(net, hosts);
        let deadline = Instant::now() + Duration::from_secs(90);
        for host in hosts {
            while zk_mode(&net.address(host)).is_none() {
                assert!(
                    Instant::now() < deadline,
                    "ZooKeeper on {host} did not join its ensemble: {}",
                    std::fs::read_to_string(root.join(host).join("stdout")).unwrap_or_default()
                );
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }

    /// Starts tansu (the Kafka-protocol broker at `tansu`) on `host`, storing in memory, and
    /// waits until it listens on the host's port 9092; returns `host:9092`.
    pub fn start_kafka(&mut self, net: &Network, host: &str, tansu: &Path, root: &Path) -> String {
        let dir = root.join(host);
        std::fs::create_dir_all(&dir).unwrap();
        let address = format!("{}:{KAFKA_PORT}", net.address(host));
        let args = tessera_api::quickstart::realtime::broker_args(&address);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.add(net, host, &tansu.to_string_lossy(), &args, &dir);
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(&address).is_err() {
            assert!(Instant::now() < deadline, "tansu on {host} did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        address
    }

    /// Starts `tessera start` with `role` on `host`, sharing the ensemble and the deep store
    /// `deep`; returns its URL once it printed it.
    pub fn start_role(
        &mut self,
        net: &Network,
        host: &str,
        role: &str,
        deep: &Path,
        root: &Path,
    ) -> String {
        let port = match role {
            "controller" => CONTROLLER_PORT,
            "broker" => BROKER_PORT,
            _ => SERVER_PORT,
        };
        let dir = root.join(host);
        std::fs::create_dir_all(&dir).unwrap();
        let address = net.address(host);
        let args: Vec<String> = [
            "start",
            "--roles",
            role,
            &format!("--{role}-port"),
            &port.to_string(),
            "--query-port",
            &QUERY_PORT.to_string(),
            "--host",
            &address,
            "--data-dir",
            &dir.join("data").to_string_lossy(),
            "--zk",
            &self.zk,
            "--cluster-name",
            "faults",
            "--zk-session-timeout-ms",
            "3000",
            "--deep-store",
            &deep.to_string_lossy(),
            "--heartbeat-ms",
            "250",
            "--log-dir",
            &dir.join("logs").to_string_lossy(),
            "--no-log-stderr",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.add(net, host, env!("CARGO_BIN_EXE_tessera"), &args, &dir);
        self.wait_printed(host);
        format!("http://{address}:{port}")
    }

    fn add(&mut self, net: &Network, host: &str, program: &str, args: &[&str], dir: &Path) {
        let mut p = Process {
            host: host.to_string(),
            program: program.to_string(),
            args: args.iter().map(|s| s.to_string()).collect(),
            dir: dir.to_path_buf(),
            child: None,
            stopped: false,
        };
        p.child = Some(spawn(net, &p));
        self.processes.insert(host.to_string(), p);
    }

    /// Waits until the role on `host` printed its URL (it listens then).
    fn wait_printed(&self, host: &str) {
        let out = self.processes[host].dir.join("stdout");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let printed = std::fs::read_to_string(&out).unwrap_or_default();
            if printed.lines().any(|l| l.contains("http://")) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{host} did not start: {}",
                std::fs::read_to_string(self.processes[host].dir.join("stderr"))
                    .unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills the process on `host` (-9).
    pub fn kill(&mut self, host: &str) {
        let p = self.processes.get_mut(host).unwrap();
        p.child = None;
        p.stopped = false;
    }

    /// Starts the process on `host` again, with the same arguments and data.
    pub fn restart(&mut self, net: &Network, host: &str) {
        let p = self.processes.get_mut(host).unwrap();
        if p.child.is_none() {
            let _ = std::fs::remove_file(p.dir.join("stdout"));
            p.child = Some(spawn(net, p));
            if p.program != "java" {
                self.wait_printed(host);
            }
        }
    }

    /// Stops (SIGSTOP) or continues (SIGCONT) the process on `host`.
    pub fn pause(&mut self, host: &str, stop: bool) {
        let p = self.processes.get_mut(host).unwrap();
        if let Some(child) = &p.child {
            let signal = if stop { libc::SIGSTOP } else { libc::SIGCONT };
            // SAFETY: signals a child this test started, by its id.
            unsafe { libc::kill(child.0.id() as i32, signal) };
            p.stopped = stop;
        }
    }

    /// Continues every stopped process and restarts every killed one.
    pub fn revive(&mut self, net: &Network) {
        let hosts: Vec<String> = self.processes.keys().cloned().collect();
        for host in hosts {
            if self.processes[&host].stopped {
                self.pause(&host, false);
            }
            self.restart(net, &host);
        }
    }

    /// The lines of any process's stderr or logs that report a panic.
    pub fn panics(&self) -> Vec<String> {
        let mut found = Vec::new();
        for p in self.processes.values() {
            let mut files = vec![p.dir.join("stderr")];
            if let Ok(logs) = std::fs::read_dir(p.dir.join("logs")) {
                files.extend(logs.flatten().map(|e| e.path()));
            }
            for f in files {
                let text = std::fs::read_to_string(&f).unwrap_or_default();
                found.extend(
                    text.lines()
                        .filter(|l| l.contains("panicked"))
                        .map(|l| format!("{}: {l}", p.host)),
                );
            }
        }
        found
    }

    /// Stops every process (before the network goes).
    pub fn stop(&mut self) {
        for p in self.processes.values_mut() {
            p.child = None;
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}

fn spawn(net: &Network, p: &Process) -> Killed {
    let file = |name: &str| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p.dir.join(name))
            .unwrap()
    };
    let child = net
        .command(&p.host, &p.program)
        .args(&p.args)
        .stdout(Stdio::from(file("stdout")))
        .stderr(Stdio::from(file("stderr")))
        .spawn()
        .unwrap_or_else(|e| panic!("start {} on {}: {e}", p.program, p.host));
    Killed(child)
}

/// The ZooKeeper node at `address`'s mode (leader, follower), if it serves.
pub fn zk_mode(address: &str) -> Option<String> {
    let mut s = TcpStream::connect_timeout(
        &format!("{address}:{ZK_PORT}").parse().ok()?,
        Duration::from_millis(500),
    )
    .ok()?;
    s.set_read_timeout(Some(Duration::from_secs(1))).ok()?;
    s.write_all(b"srvr").ok()?;
    let mut answer = String::new();
    s.read_to_string(&mut answer).ok()?;
    answer
        .lines()
        .find_map(|l| l.strip_prefix("Mode: "))
        .filter(|m| *m == "leader" || *m == "follower")
        .map(str::to_string)
}

/// The client address (`host:port,…`) of the ZooKeeper nodes on `hosts`.
pub fn zk_address(net: &Network, hosts: &[&str]) -> String {
    (hosts.iter())
        .map(|h| format!("{}:{ZK_PORT}", net.address(h)))
        .collect::<Vec<_>>()
        .join(",")
}

/// Whether `program` can be run at all.
pub fn runs(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
