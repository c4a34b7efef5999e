//! A real ZooKeeper for tests: Debian's `zookeeper` package (the repo's test setup installs it),
//! run as a standalone server on 127.0.0.1 with a private config and data dir, stopped by its
//! PID when the test drops it — and by the kernel when the test process dies first (its parent-
//! death signal), so none outlives a test. `TESSERA_ZOOKEEPER_CP` overrides the class path.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const DEBIAN_CP: &str = "/etc/zookeeper/conf:/usr/share/java/zookeeper.jar";

/// The class path of an installed ZooKeeper, if there is one. Under CI its absence fails.
pub fn class_path() -> Option<String> {
    let cp = std::env::var("TESSERA_ZOOKEEPER_CP").unwrap_or_else(|_| DEBIAN_CP.to_string());
    let jar_present = cp
        .split(':')
        .any(|p| p.ends_with(".jar") && PathBuf::from(p).is_file());
    let java = Command::new("java")
        .arg("-version")
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if jar_present && java {
        return Some(cp);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "no ZooKeeper at {cp} (java: {java}): apt-get install zookeeper"
    );
    eprintln!("skipped: no ZooKeeper at {cp} (apt-get install zookeeper)");
    None
}

/// A running ZooKeeper server.
pub struct ZooKeeper {
    pub port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
    cp: String,
}

impl ZooKeeper {
    /// Starts a server on a free port (None when ZooKeeper is not installed, outside CI).
    pub fn start() -> Option<ZooKeeper> {
        let cp = class_path()?;
        let dir = tempfile::tempdir().unwrap();
        let port = super::free_port();
        let cfg = format!(
            "tickTime=200\ninitLimit=10\nsyncLimit=5\ndataDir={}\nclientPort={port}\n\
             clientPortAddress=127.0.0.1\nadmin.enableServer=false\n\
             4lw.commands.whitelist=ruok\nminSessionTimeout=400\nmaxSessionTimeout=60000\n",
            dir.path().join("data").display()
        );
        std::fs::write(dir.path().join("zoo.cfg"), cfg).unwrap();
        let mut zk = ZooKeeper {
            port,
            dir,
            child: None,
            cp,
        };
        zk.resume();
        Some(zk)
    }

    /// `127.0.0.1:<port>`.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Kills the server (its data stays for [`ZooKeeper::resume`]).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Stops (SIGSTOP) or continues (SIGCONT) the server: stopped, it keeps its connections
    /// open and answers nothing.
    pub fn pause(&self, stop: bool) {
        if let Some(c) = &self.child {
            let signal = if stop { libc::SIGSTOP } else { libc::SIGCONT };
            // SAFETY: signals the child this helper started, by its id.
            unsafe { libc::kill(c.id() as i32, signal) };
        }
    }

    /// Starts the server (again) on the same port and data, and waits until it answers.
    pub fn resume(&mut self) {
        let log = std::fs::File::create(self.dir.path().join("zookeeper.log")).unwrap();
        let mut command = Command::new("java");
        // SAFETY: prctl is async-signal-safe; the closure only asks for SIGKILL on the parent's
        // death and touches no memory of the parent.
        unsafe {
            use std::os::unix::process::CommandExt;
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = command
            .args([
                "-Xmx256m",
                "-cp",
                &self.cp,
                "-Dzookeeper.root.logger=WARN,CONSOLE",
                "org.apache.zookeeper.server.quorum.QuorumPeerMain",
            ])
            .arg(self.dir.path().join("zoo.cfg"))
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start ZooKeeper");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.is_ok() {
            assert!(
                Instant::now() < deadline,
                "ZooKeeper did not start: {}",
                std::fs::read_to_string(self.dir.path().join("zookeeper.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn is_ok(&self) -> bool {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
        let mut answer = String::new();
        s.write_all(b"ruok").is_ok() && s.read_to_string(&mut answer).is_ok() && answer == "imok"
    }
}

impl Drop for ZooKeeper {
    fn drop(&mut self) {
        self.kill();
    }
}
