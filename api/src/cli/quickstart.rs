//! `tessera quickstart`: starts all roles on Pinot's ports, loads the sample `lineitem` table
//! (generated rows, sorted/inverted/range indexes) and prints curl and pinotdb examples.

use crate::cli::start::{LogArgs, StartArgs, print_urls};
use crate::{cluster, quickstart};
use clap::Args;
use std::path::PathBuf;

/// Options of `tessera quickstart`.
#[derive(Args, Debug, Clone)]
pub struct QuickstartArgs {
    /// Data directory (default: a fresh directory under the system temp dir).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Number of sample segments.
    #[arg(long, default_value_t = 2)]
    pub segments: usize,
    /// Rows per sample segment.
    #[arg(long, default_value_t = 100_000)]
    pub rows_per_segment: usize,
    /// Controller port.
    #[arg(long, default_value_t = 9000)]
    pub controller_port: u16,
    /// Broker port.
    #[arg(long, default_value_t = 8099)]
    pub broker_port: u16,
    /// Server port.
    #[arg(long, default_value_t = 8098)]
    pub server_port: u16,
    /// Also start a Kafka-protocol broker (tansu: `scripts/get-tansu.sh` installs it, or set
    /// `TESSERA_TANSU`) and a REALTIME table `events` consuming generated events from it.
    #[arg(long)]
    pub realtime: bool,
    /// Port of the quickstart's Kafka broker (with `--realtime`).
    #[arg(long, default_value_t = 19092)]
    pub kafka_port: u16,
    /// Start no role: load the sample table into the running cluster whose controller is at
    /// this URL (a cluster of separate processes), then exit.
    #[arg(long, value_name = "CONTROLLER_URL")]
    pub load_into: Option<String>,
    #[command(flatten)]
    pub log: LogArgs,
}

/// Runs `tessera quickstart`.
pub fn run(args: QuickstartArgs) -> Result<(), String> {
    if let Some(controller) = &args.load_into {
        let controller = controller.trim_end_matches('/').to_string();
        let work = std::env::temp_dir().join(format!("tessera-sample-{}", std::process::id()));
        let loaded = async_std::task::block_on(quickstart::load_sample(
            &controller,
            &work,
            args.segments,
            args.rows_per_segment,
        ));
        let _ = std::fs::remove_dir_all(&work);
        loaded.map_err(|e| e.to_string())?;
        println!(
            "Loaded table 'lineitem' ({} rows in {} segments) into {controller}",
            args.segments * args.rows_per_segment,
            args.segments
        );
        return Ok(());
    }
    let data_dir = args.data_dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("tessera-quickstart-{}", std::process::id()))
    });
    let start = StartArgs {
        roles: "controller,broker,server,minion".into(),
        data_dir: data_dir.clone(),
        controller_port: args.controller_port,
        broker_port: args.broker_port,
        server_port: args.server_port,
        minion_port: 0,
        query_port: 0,
        controller_url: None,
        zk: None,
        cluster_name: "PinotCluster".into(),
        zk_session_timeout_ms: 10_000,
        config: None,
        deep_store: None,
        instance_id: None,
        tags: None,
        host: "127.0.0.1".into(),
        heartbeat_ms: 500,
        max_upload_bytes: 1 << 30,
        max_running_queries: crate::broker::admission::DEFAULT_MAX_RUNNING,
        max_queued_queries: crate::broker::admission::DEFAULT_MAX_QUEUED,
        auth_config: None,
        query_response_limit: crate::broker::DEFAULT_QUERY_RESPONSE_LIMIT,
        max_query_bytes: crate::broker::DEFAULT_MAX_QUERY_BYTES,
        decoded_dictionary_bytes: segments::dictionary::decoded::DEFAULT_BUDGET_BYTES,
        tls_cert_file: None,
        tls_key_file: None,
        tls_ca_file: None,
        log: args.log.clone(),
    };
    let opts = start.options()?;
    let kafka = if args.realtime {
        let tansu = quickstart::realtime::find_tansu().ok_or(
            "--realtime needs the tansu Kafka broker: run scripts/get-tansu.sh (or set TESSERA_TANSU)",
        )?;
        Some(
            quickstart::realtime::start_broker(&tansu, args.kafka_port)
                .map_err(|e| e.to_string())?,
        )
    } else {
        None
    };
    async_std::task::block_on(async move {
        let c = cluster::start(opts).await.map_err(|e| e.to_string())?;
        print_urls(&c);
        let controller = c.controller_url.clone().unwrap_or_default();
        let broker = c.broker_url.clone().unwrap_or_default();
        let work = data_dir.join("quickstart-build");
        quickstart::load_sample(&controller, &work, args.segments, args.rows_per_segment)
            .await
            .map_err(|e| e.to_string())?;
        let _ = std::fs::remove_dir_all(&work);
        println!(
            "\nLoaded table 'lineitem' ({} rows in {} segments). Try:\n\
             \x20 curl {controller}/tables\n\
             \x20 curl {controller}/tables/lineitem/schema\n\
             \x20 curl {controller}/segments/lineitem\n\
             \x20 curl -X POST {broker}/query/sql -H 'Content-Type: application/json' \\\n\
             \x20      -d '{{\"sql\":\"SELECT l_shipmode, COUNT(*) FROM lineitem GROUP BY l_shipmode\"}}'\n\
             \x20 python3 -c \"from pinotdb import connect; c = connect(host='127.0.0.1', port={bport}).cursor(); \
             c.execute('SELECT l_returnflag, SUM(l_quantity) FROM lineitem GROUP BY l_returnflag'); print(c.fetchall())\"\n\
             Data dir: {}",
            args.segments * args.rows_per_segment,
            args.segments,
            data_dir.display(),
            bport = args.broker_port,
        );
        if let Some(k) = &kafka {
            quickstart::realtime::start_events(&k.address).map_err(|e| e.to_string())?;
            quickstart::realtime::create_table(&controller, &k.address)
                .await
                .map_err(|e| e.to_string())?;
            println!(
                "\nReal-time table 'events' consumes topic 'events' from the Kafka broker at {} \
                 (an event every 100 ms; a segment commits every 1,000). Watch it grow:\n\
                 \x20 curl -X POST {broker}/query/sql -H 'Content-Type: application/json' \\\n\
                 \x20      -d '{{\"sql\":\"SELECT kind, COUNT(*), SUM(amount) FROM events GROUP BY kind\"}}'\n\
                 \x20 curl {controller}/tables/events/consumingSegmentsInfo",
                k.address
            );
        }
        c.wait().await;
        drop(kafka);
        Ok(())
    })
}
