//! `cairn api`: an API node, the HandlerSocket and SQL front ends over a running data node.

use anyhow::{Context, Result};
use clap::Args;

use crate::flags::{HsArgs, SqlArgs};
use crate::{exposure, stop_signal};

#[derive(Args)]
pub struct ApiArgs {
    /// The data node to serve from.
    #[arg(long, default_value = "127.0.0.1:2202")]
    datanode: String,
    /// Address the listeners bind to. Off loopback, every listener must have its credentials
    /// set: HandlerSocket secrets, the SQL root password, and --cluster-tls or --cluster-key-file for the native
    /// protocol (or --insecure).
    #[arg(long, default_value = "127.0.0.1")]
    bind: String,
    /// Listen off loopback even where no credentials guard a listener (a lab network only;
    /// every open listener is named in a warning).
    #[arg(long)]
    insecure: bool,
    #[command(flatten)]
    hs: HsArgs,
    #[command(flatten)]
    sql: SqlArgs,
}

pub fn run_api(args: ApiArgs) -> Result<()> {
    let [hs_read, hs_write] = args.hs.listeners(&args.bind);
    exposure::check(
        &[hs_read, hs_write, args.sql.listener(&args.bind)],
        args.insecure,
    )?;
    let hs = hs::HsServer::start(args.hs.config(&args.bind, args.datanode.clone()))
        .with_context(|| format!("starting the HandlerSocket front end for {}", args.datanode))?;
    println!(
        "handlersocket: read {} write {} (data node {})",
        hs.read_address(),
        hs.write_address(),
        args.datanode
    );
    let sql = sql::SqlServer::start(args.sql.config(&args.bind, args.datanode.clone()))
        .with_context(|| format!("starting the SQL front end for {}", args.datanode))?;
    println!("sql (mysql protocol): {}", sql.address());
    if let Some(path) = sql.socket() {
        println!("sql unix socket: {}", path.display());
    }
    let stop = stop_signal()?;
    println!("ready");
    let _ = stop.recv();
    sql.stop();
    hs.stop();
    println!("stopped");
    Ok(())
}
