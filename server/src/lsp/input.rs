//! The server's input, checked before tower-lsp-server sees it: its codec
//! ends the session at the first body that is not JSON, so a malformed
//! message is replaced by a `$/mutiny/malformedMessage` notification, which
//! the server logs and otherwise ignores.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

pub const MALFORMED_METHOD: &str = "$/mutiny/malformedMessage";

/// Messages larger than this are refused (and replaced) rather than read.
const MAX_BODY: usize = 64 << 20;

/// Copies framed messages from `input` to the returned stream, replacing
/// bodies that are not JSON objects.
pub fn checked(input: impl AsyncRead + Unpin + Send + 'static) -> DuplexStream {
    let (server_side, mut our_side) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut reader = BufReader::new(input);
        while let Some(body) = next_body(&mut reader).await {
            let body = match body {
                Ok(body) => body,
                Err(problem) => malformed(&problem),
            };
            let header = format!("Content-Length: {}\r\n\r\n", body.len());
            if our_side.write_all(header.as_bytes()).await.is_err()
                || our_side.write_all(&body).await.is_err()
            {
                break;
            }
        }
        // Dropping our side ends the server's input: the client went away.
    });
    server_side
}

/// The next message body: `Ok` when it is a JSON object, `Err` with what is
/// wrong otherwise; `None` at the end of the input.
async fn next_body(
    reader: &mut (impl AsyncBufReadExt + AsyncReadExt + Unpin),
) -> Option<Result<Vec<u8>, String>> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            }
        }
    }
    let length = length?;
    if length > MAX_BODY {
        let mut skipped = reader.take(length as u64);
        tokio::io::copy(&mut skipped, &mut tokio::io::sink())
            .await
            .ok()?;
        return Some(Err(format!("a message of {length} bytes is too large")));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.ok()?;
    Some(match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(serde_json::Value::Object(_)) => Ok(body),
        Ok(_) => Err("the message is JSON but not an object".to_owned()),
        Err(err) => Err(format!("the message is not JSON: {err}")),
    })
}

fn malformed(problem: &str) -> Vec<u8> {
    serde_json::json!({
        "jsonrpc": "2.0",
        "method": MALFORMED_METHOD,
        "params": { "problem": problem },
    })
    .to_string()
    .into_bytes()
}
