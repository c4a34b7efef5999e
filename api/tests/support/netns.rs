//! Hosts on one machine for tests of what crosses a network: each host a network namespace with
//! its own address, all joined by a router namespace (one veth pair per host, a /24 each), so
//! processes reach each other by address as on separate machines. The test process itself
//! reaches every host through one more veth pair into the router (a route for the network's
//! /16 in its own namespace).
//!
//! Partitions are made in the router: `ip rule … blackhole` drops the packets it forwards from
//! one host to another without a word back, as a cut link does — a connect hangs, a connection
//! goes silent. This needs root (`ip netns`); [`Network::create`] says why it cannot, and the
//! caller skips. Everything made here is named `tsr<pid>…` and removed when the network drops
//! (and, from a test process that died first, by the next one: [`remove_stale`]).

use std::collections::BTreeMap;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::process::{Child, Command, Stdio};

/// The network's /16: host `i` is `10.213.i.2`, its router side `10.213.i.1`; the test
/// process is `10.213.0.2`.
const NET: &str = "10.213";

/// A network of hosts.
pub struct Network {
    prefix: String,
    router: String,
    hosts: BTreeMap<String, Host>,
    /// The blackhole rules in force, as `from to` address pairs.
    cuts: Vec<(String, String)>,
    /// Held while the network lives: the names and addresses are the process's, so the tests
    /// of one process that make networks take turns.
    _turn: std::sync::MutexGuard<'static, ()>,
}

/// Whose turn it is to have this process's network.
static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// One host: its namespace and address.
#[derive(Clone, Debug)]
pub struct Host {
    pub name: String,
    pub namespace: String,
    pub address: String,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Gives `link` the address `cidr` and brings it up, in `namespace` (else this process's own).
fn link_up(namespace: Option<&str>, link: &str, cidr: &str) -> Result<(), String> {
    let within: Vec<&str> = namespace.map_or(Vec::new(), |n| vec!["-n", n]);
    ip(&[&within[..], &["addr", "add", cidr, "dev", link]].concat())?;
    ip(&[&within[..], &["link", "set", link, "up"]].concat())
}

/// Removes the namespaces and links of test processes that are no longer running.
pub fn remove_stale() {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let name = line.split_whitespace().next().unwrap_or_default();
        let Some(pid) = name
            .strip_prefix("tsr")
            .and_then(|r| r.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = ip(&["netns", "del", name]);
            let _ = ip(&["link", "del", &format!("tsr{pid}c")]);
        }
    }
}

impl Network {
    /// A network of hosts named `names`, or why it cannot be made here.
    pub fn create(names: &[&str]) -> Result<Network, String> {
        if names.len() > 250 {
            return Err("at most 250 hosts".into());
        }
        // A test that failed while holding it leaves nothing behind to wait for.
        let turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        remove_stale();
        let prefix = format!("tsr{}", std::process::id());
        let router = format!("{prefix}-router");
        let mut net = Network {
            prefix: prefix.clone(),
            router: router.clone(),
            hosts: BTreeMap::new(),
            cuts: Vec::new(),
            _turn: turn,
        };
        ip(&["netns", "add", &router])?;
        ip(&["-n", &router, "link", "set", "lo", "up"])?;
        let forward = Command::new("ip")
            .args([
                "netns",
                "exec",
                &router,
                "sysctl",
                "-qw",
                "net.ipv4.ip_forward=1",
            ])
            .status()
            .map_err(|e| e.to_string())?;
        if !forward.success() {
            return Err("cannot turn on forwarding in the router namespace".into());
        }
        // The test process's own link into the router.
        let (outer, inner) = (format!("{prefix}c"), format!("{prefix}c0"));
        ip(&[
            "link", "add", &outer, "type", "veth", "peer", "name", &inner, "netns", &router,
        ])?;
        link_up(Some(&router), &inner, &format!("{NET}.0.1/24"))?;
        link_up(None, &outer, &format!("{NET}.0.2/24"))?;
        ip(&[
            "route",
            "add",
            &format!("{NET}.0.0/16"),
            "via",
            &format!("{NET}.0.1"),
        ])?;
        for (i, name) in names.iter().enumerate() {
            let i = i + 1;
            let namespace = format!("{prefix}-{name}");
            let link = format!("{prefix}h{i}");
            ip(&["netns", "add", &namespace])?;
            ip(&[
                "link", "add", &link, "netns", &router, "type", "veth", "peer", "name", "eth0",
                "netns", &namespace,
            ])?;
            link_up(Some(&router), &link, &format!("{NET}.{i}.1/24"))?;
            let address = format!("{NET}.{i}.2");
            link_up(Some(&namespace), "eth0", &format!("{address}/24"))?;
            ip(&["-n", &namespace, "link", "set", "lo", "up"])?;
            ip(&[
                "-n",
                &namespace,
                "route",
                "add",
                "default",
                "via",
                &format!("{NET}.{i}.1"),
            ])?;
            net.hosts.insert(
                name.to_string(),
                Host {
                    name: name.to_string(),
                    namespace,
                    address,
                },
            );
        }
        Ok(net)
    }

    /// The host `name`.
    pub fn host(&self, name: &str) -> &Host {
        &self.hosts[name]
    }

    /// Host `name`'s address.
    pub fn address(&self, name: &str) -> String {
        self.hosts[name].address.clone()
    }

    /// Drops every packet between each host of `a` and each of `b`, both ways, silently.
    pub fn cut(&mut self, a: &[&str], b: &[&str]) {
        for x in a {
            for y in b {
                if x == y {
                    continue;
                }
                let (ax, ay) = (self.address(x), self.address(y));
                for (from, to) in [(ax.clone(), ay.clone()), (ay, ax)] {
                    if self.cuts.contains(&(from.clone(), to.clone())) {
                        continue;
                    }
                    self.rule("add", &from, &to).expect("add a blackhole rule");
                    self.cuts.push((from, to));
                }
            }
        }
    }

    /// Cuts `name` from every other host (the test process still reaches it).
    pub fn isolate(&mut self, name: &str) {
        let others: Vec<String> = self.hosts.keys().filter(|h| *h != name).cloned().collect();
        let others: Vec<&str> = others.iter().map(String::as_str).collect();
        self.cut(&[name], &others);
    }

    /// Removes every cut.
    pub fn heal(&mut self) {
        for (from, to) in std::mem::take(&mut self.cuts) {
            self.rule("del", &from, &to)
                .expect("remove a blackhole rule");
        }
    }

    /// Adds or deletes (`verb`) the router's rule that drops what `from` sends `to`.
    fn rule(&self, verb: &str, from: &str, to: &str) -> Result<(), String> {
        let router = &self.router;
        ip(&[
            "-n",
            router,
            "rule",
            verb,
            "from",
            from,
            "to",
            to,
            "blackhole",
            "pref",
            "100",
        ])
    }

    /// `command`, made to run in host `name`'s namespace (and to die with the test process).
    pub fn command(&self, name: &str, program: &str) -> Command {
        let path = format!("/run/netns/{}", self.hosts[name].namespace);
        let namespace = File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut command = Command::new(program);
        // SAFETY: setns and prctl are async-signal-safe system calls; the closure owns the
        // namespace file and touches no other memory of the parent.
        unsafe {
            use std::os::unix::process::CommandExt;
            command.pre_exec(move || {
                if libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        command.stdin(Stdio::null());
        command
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        for host in self.hosts.values() {
            let _ = ip(&["netns", "del", &host.namespace]);
        }
        let _ = ip(&["netns", "del", &self.router]);
        // Gone with the router's end; removed here in case it was not.
        let _ = ip(&["link", "del", &format!("{}c", self.prefix)]);
    }
}

/// A child that is killed (and waited for) when dropped.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
