//! The one task that talks to the client on the worker's behalf: it sends
//! diagnostics, messages, progress and status in the order the worker
//! produced them.

use tokio::sync::mpsc::UnboundedReceiver;
use tower_lsp_server::ls_types::notification::Progress;
use tower_lsp_server::ls_types::request::WorkDoneProgressCreate;
use tower_lsp_server::ls_types::{
    Diagnostic, MessageType, NumberOrString, ProgressParams, ProgressParamsValue, Uri,
    WorkDoneProgress, WorkDoneProgressCreateParams,
};
use tower_lsp_server::Client;

use super::ext;

/// What the worker asks the client to show.
pub enum Message {
    Publish {
        uri: Uri,
        diagnostics: Vec<Diagnostic>,
    },
    Show(MessageType, String),
    Log(MessageType, String),
    /// `$/progress` for a job: begin (after creating the token), report, end.
    Progress {
        token: String,
        step: WorkDoneProgress,
    },
    /// `mutiny/status`, for status bars.
    Status(ext::StatusParams),
}

/// Sends messages to the client in the order the worker produced them.
/// Once a burst of diagnostics is sent (nothing more waiting), a client
/// that can be asked (`lens_refresh`) is asked to ask for code lenses
/// again: they count the same findings, and a client asks for them only
/// when the text changes, so a re-test's results would leave them stale.
pub async fn publish(client: Client, mut receiver: UnboundedReceiver<Message>, lens_refresh: bool) {
    let mut refresh_due = false;
    loop {
        let message = match receiver.try_recv() {
            Ok(message) => message,
            Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => break,
            Err(tokio::sync::mpsc::error::TryRecvError::Empty) => {
                if std::mem::take(&mut refresh_due) {
                    // Not awaited: a client that never answers must not
                    // hold up the messages.
                    let client = client.clone();
                    tokio::spawn(async move { client.code_lens_refresh().await });
                }
                match receiver.recv().await {
                    Some(message) => message,
                    None => break,
                }
            }
        };
        match message {
            Message::Publish { uri, diagnostics } => {
                client.publish_diagnostics(uri, diagnostics, None).await;
                refresh_due = lens_refresh;
            }
            Message::Show(kind, text) => client.show_message(kind, text).await,
            Message::Log(kind, text) => {
                if logged(kind) {
                    eprintln!("{text}");
                    client.log_message(kind, text).await;
                }
            }
            Message::Progress { token, step } => {
                let token = NumberOrString::String(token);
                if matches!(step, WorkDoneProgress::Begin(_)) {
                    let create = WorkDoneProgressCreateParams {
                        token: token.clone(),
                    };
                    // A client that refuses progress still gets its results.
                    let _ = client.send_request::<WorkDoneProgressCreate>(create).await;
                }
                let value = ProgressParamsValue::WorkDone(step);
                client
                    .send_notification::<Progress>(ProgressParams { token, value })
                    .await;
            }
            Message::Status(params) => client.send_notification::<ext::Status>(params).await,
        }
    }
}

/// Whether messages of this kind are logged: `MUTINY_LOG` (or `RUST_LOG`)
/// = `off`, `error`, `warn`, `info` (default) or `debug`.
fn logged(kind: MessageType) -> bool {
    static LEVEL: std::sync::OnceLock<i32> = std::sync::OnceLock::new();
    let level = *LEVEL.get_or_init(|| {
        let setting = std::env::var("MUTINY_LOG")
            .or_else(|_| std::env::var("RUST_LOG"))
            .unwrap_or_default();
        log_level(&setting)
    });
    kind_rank(kind) <= level
}

fn kind_rank(kind: MessageType) -> i32 {
    match kind {
        MessageType::ERROR => 1,
        MessageType::WARNING => 2,
        MessageType::INFO => 3,
        _ => 4,
    }
}

/// The most verbose message rank a log setting lets through.
fn log_level(setting: &str) -> i32 {
    match setting.trim().to_ascii_lowercase().as_str() {
        "off" => 0,
        "error" => 1,
        "warn" | "warning" => 2,
        "debug" | "trace" => 4,
        _ => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_levels_let_through_what_they_name_and_more_severe() {
        assert_eq!(log_level(""), 3);
        assert!(kind_rank(MessageType::WARNING) <= log_level("warn"));
        assert!(kind_rank(MessageType::INFO) > log_level("WARN"));
        assert!(kind_rank(MessageType::ERROR) > log_level("off"));
        assert!(kind_rank(MessageType::LOG) <= log_level("debug"));
    }
}
