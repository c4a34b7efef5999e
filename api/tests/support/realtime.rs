//! A `tessera start` process (all roles) on a data dir for the real-time tests: restart and
//! kill -9 it, count rows through its broker, pause and resume its tables.

use super::{Proc, call, free_port, json_body};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// An HTTP call with an optional JSON body: status and JSON answer.
pub fn http(method: &str, url: &str, body: Option<Value>) -> (u16, Value) {
    async_std::task::block_on(call(method, url, body.and_then(json_body)))
}

/// Pinot's JSON message decoder class.
pub const JSON_DECODER: &str = "org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder";

/// The real-time tests' event schema `name`: `kind` (STRING), `id` (LONG), `ts` (TIMESTAMP).
pub fn event_schema(name: &str) -> Value {
    json!({
        "schemaName": name,
        "dimensionFieldSpecs": [{"name": "kind", "dataType": "STRING"}],
        "metricFieldSpecs": [{"name": "id", "dataType": "LONG"}],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP",
            "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"}]
    })
}

/// The stream config of Kafka topic `topic` at `broker`, read from its start with `decoder`,
/// a segment committed every `flush_rows` rows (or hour).
pub fn kafka_stream(topic: &str, broker: &str, decoder: &str, flush_rows: u64) -> Value {
    json!({
        "streamType": "kafka",
        "stream.kafka.topic.name": topic,
        "stream.kafka.broker.list": broker,
        "stream.kafka.consumer.type": "lowlevel",
        "stream.kafka.consumer.prop.auto.offset.reset": "smallest",
        "stream.kafka.decoder.class.name": decoder,
        "realtime.segment.flush.threshold.rows": flush_rows.to_string(),
        "realtime.segment.flush.threshold.time": "1h"
    })
}

/// The REALTIME table config `name` (time column `ts`) with `index_config` over `stream`.
pub fn realtime_table(name: &str, index_config: Value, stream: Value) -> Value {
    json!({
        "tableName": name,
        "tableType": "REALTIME",
        "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
        "tenants": {},
        "tableIndexConfig": index_config,
        "ingestionConfig": {"streamIngestionConfig": {"streamConfigMaps": [stream]}},
        "metadata": {}
    })
}

/// One `tessera start` process and its URLs.
pub struct Tessera {
    proc: Option<Proc>,
    pub controller: String,
    pub broker: String,
    pub data: std::path::PathBuf,
    ports: [u16; 3],
}

impl Tessera {
    /// `sql` through the broker (`POST /query/sql`, which must answer 200): the response.
    pub fn sql(&self, sql: &str) -> Value {
        let (status, body) = http(
            "POST",
            &format!("{}/query/sql", self.broker),
            Some(json!({ "sql": sql })),
        );
        assert_eq!(status, 200, "{body}");
        body
    }

    /// `SELECT count(*), sum(col) FROM table`, after `prefix` (a `SET …;`): (-1, -1) when the
    /// query does not answer.
    pub fn count_sum(&self, table: &str, col: &str, prefix: &str) -> (i64, i64) {
        let (_, body) = http(
            "POST",
            &format!("{}/query/sql", self.broker),
            Some(json!({"sql": format!("{prefix}SELECT count(*), sum({col}) FROM {table}")})),
        );
        let row = &body["resultTable"]["rows"][0];
        (
            row[0].as_i64().unwrap_or(-1),
            row[1].as_f64().unwrap_or(-1.0) as i64,
        )
    }

    /// A handle on processes started elsewhere (no restart, no kill).
    pub fn attach(controller: &str, broker: &str, data: &std::path::Path) -> Tessera {
        Tessera {
            proc: None,
            controller: controller.to_string(),
            broker: broker.to_string(),
            data: data.to_path_buf(),
            ports: [0; 3],
        }
    }

    /// Starts on three free ports (a restart keeps them). A port found free can be taken
    /// before the process binds it (another test's outgoing connection): then it starts again on
    /// others.
    pub fn start(data: &std::path::Path) -> Tessera {
        let mut t = Tessera {
            proc: None,
            controller: String::new(),
            broker: String::new(),
            data: data.to_path_buf(),
            ports: [0; 3],
        };
        let mut tries = 0;
        loop {
            t.ports = [free_port(), free_port(), free_port()];
            match t.try_restart() {
                Ok(()) => return t,
                Err(why) if tries >= 4 => panic!("{why}"),
                Err(_) => tries += 1,
            }
        }
    }

    pub fn restart(&mut self) {
        self.try_restart().unwrap_or_else(|why| panic!("{why}"));
    }

    fn try_restart(&mut self) -> Result<(), String> {
        self.proc = None;
        let ports = self.ports.map(|p| p.to_string());
        let (proc, urls) = super::try_start(&[
            "--data-dir",
            self.data.to_str().unwrap(),
            "--controller-port",
            &ports[0],
            "--broker-port",
            &ports[1],
            "--server-port",
            &ports[2],
            "--heartbeat-ms",
            "200",
            "--no-log-stderr",
        ])?;
        self.proc = Some(proc);
        self.controller = urls["controller"].clone();
        self.broker = urls["broker"].clone();
        Ok(())
    }

    pub fn kill_9(&mut self) {
        if let Some(mut p) = self.proc.take() {
            let _ = p.0.kill(); // SIGKILL
            let _ = p.0.wait();
        }
    }

    /// `SELECT count(*), sum(id)` through the broker: (rows, sum of ids).
    pub fn count(&self, table: &str) -> (i64, i64) {
        self.count_with(table, "")
    }

    /// [`Tessera::count`] on the multi-stage engine.
    pub fn count_v2(&self, table: &str) -> (i64, i64) {
        self.count_with(table, "SET useMultistageEngine=true; ")
    }

    pub fn count_with(&self, table: &str, prefix: &str) -> (i64, i64) {
        let body = self.sql(&format!("{prefix}SELECT count(*), sum(id) FROM {table}"));
        let ex = &body["exceptions"];
        if ex.as_array().is_some_and(|e| !e.is_empty()) {
            return (-1, -1);
        }
        let row = &body["resultTable"]["rows"][0];
        (
            row[0].as_i64().unwrap_or(-1),
            row[1].as_f64().unwrap_or(-1.0) as i64,
        )
    }

    /// Waits until the table holds exactly `rows` rows with ids summing to `sum`.
    pub fn wait_for(&self, table: &str, rows: i64, sum: i64, within: Duration) -> Duration {
        let started = Instant::now();
        let mut last = (0, 0);
        while started.elapsed() < within {
            last = self.count(table);
            if last == (rows, sum) {
                return started.elapsed();
            }
            assert!(
                last.0 <= rows,
                "{table} has {last:?}, more than {rows} rows"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "{table}: expected ({rows}, {sum}) within {within:?}, last saw {last:?}\n{}",
            self.log_tail()
        );
    }

    /// The last lines of the process's logs, for a failure's message.
    pub fn log_tail(&self) -> String {
        let mut out = String::new();
        for entry in std::fs::read_dir(self.data.join("logs"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            for l in &lines[lines.len().saturating_sub(40)..] {
                out.push_str(l);
                out.push('\n');
            }
        }
        out
    }

    pub fn segments(&self, table: &str) -> Vec<Value> {
        let (s, body) = http(
            "GET",
            &format!(
                "{}/segments/{table}/zkmetadata?type=REALTIME",
                self.controller
            ),
            None,
        );
        assert_eq!(s, 200, "{body}");
        body.as_object()
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default()
    }

    /// `POST {controller}{path}` with a JSON body, which must answer 200.
    pub fn post_ok(&self, path: &str, body: Value) -> Value {
        let (s, b) = http("POST", &format!("{}{path}", self.controller), Some(body));
        assert_eq!(s, 200, "POST {path}: {b}");
        b
    }

    /// `POST /tables/{t}/pauseConsumption?…`, then waits until no segment is consuming.
    pub fn pause(&self, table: &str) -> Value {
        let (s, b) = http(
            "POST",
            &format!("{}/tables/{table}/pauseConsumption", self.controller),
            None,
        );
        assert_eq!(s, 200, "{b}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.pause_status(table)["consumingSegments"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
        {
            assert!(Instant::now() < deadline, "{}", self.pause_status(table));
            std::thread::sleep(Duration::from_millis(100));
        }
        b
    }

    /// `POST /tables/{t}/resumeConsumption[?query]`.
    pub fn resume(&self, table: &str, query: &str) -> Value {
        let (s, b) = http(
            "POST",
            &format!(
                "{}/tables/{table}/resumeConsumption{query}",
                self.controller
            ),
            None,
        );
        assert_eq!(s, 200, "{b}");
        b
    }

    pub fn pause_status(&self, table: &str) -> Value {
        http(
            "GET",
            &format!("{}/tables/{table}/pauseStatus", self.controller),
            None,
        )
        .1
    }
}
