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

#[cfg(test)]
mod tests {
    //! Property tests of the checker: arbitrary frames and arbitrary bytes
    //! (`PROPTEST_CASES=20000 cargo test -p mutiny --lib fuzz` hunts longer).

    use proptest::prelude::*;
    use tokio::io::AsyncReadExt;

    use super::{checked, MALFORMED_METHOD};

    /// What the server side reads when `input` is the client's output.
    fn through_checker(input: Vec<u8>) -> Vec<u8> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let mut output = checked(std::io::Cursor::new(input));
            let mut bytes = Vec::new();
            output.read_to_end(&mut bytes).await.unwrap();
            bytes
        })
    }

    /// The bodies of the framed messages in `bytes`, checking each header.
    fn bodies(mut bytes: &[u8]) -> Result<Vec<serde_json::Value>, String> {
        let mut bodies = Vec::new();
        while !bytes.is_empty() {
            let text = std::str::from_utf8(bytes).map_err(|err| err.to_string())?;
            let rest = text
                .strip_prefix("Content-Length: ")
                .ok_or_else(|| format!("no header at {text:?}"))?;
            let (length, rest) = rest.split_once("\r\n\r\n").ok_or("an unended header")?;
            let length: usize = length.parse().map_err(|_| format!("length {length:?}"))?;
            let body = rest.get(..length).ok_or("a short body")?;
            bodies.push(serde_json::from_str(body).map_err(|err| err.to_string())?);
            bytes = &rest.as_bytes()[length..];
        }
        Ok(bodies)
    }

    /// A message a client might send, or a body that is not a JSON object.
    #[derive(Debug, Clone)]
    enum Body {
        Message(serde_json::Value),
        Garbage(Vec<u8>),
    }

    fn body() -> impl Strategy<Value = Body> {
        let message = (any::<String>(), any::<String>(), any::<Option<u32>>()).prop_map(
            |(method, text, id)| {
                let mut message = serde_json::json!({
                    "jsonrpc": "2.0", "method": method, "params": { "text": text },
                });
                if let Some(id) = id {
                    message["id"] = id.into();
                }
                Body::Message(message)
            },
        );
        let garbage = prop_oneof![
            any::<Vec<u8>>(),
            Just(b"[1, 2]".to_vec()),
            Just(b"\"a string\"".to_vec()),
            Just(b"{\"unclosed\": ".to_vec()),
        ]
        .prop_filter("not a JSON object", |bytes| {
            !matches!(
                serde_json::from_slice::<serde_json::Value>(bytes),
                Ok(serde_json::Value::Object(_))
            )
        })
        .prop_map(Body::Garbage);
        prop_oneof![message, garbage]
    }

    /// The header of a body of `length`, as clients write it: any case,
    /// sometimes with a content type too.
    fn header(length: usize, lower_case: bool, content_type: bool) -> Vec<u8> {
        let name = if lower_case {
            "content-length"
        } else {
            "Content-Length"
        };
        let mut header = format!("{name}: {length}\r\n");
        if content_type {
            header.push_str("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n");
        }
        header.push_str("\r\n");
        header.into_bytes()
    }

    proptest! {
        /// Framed messages come through one for one: objects unchanged,
        /// anything else as a malformed-message notification.
        #[test]
        fn fuzz_every_framed_body_reaches_the_server_as_a_json_object(
            frames in prop::collection::vec((body(), any::<bool>(), any::<bool>()), 0..8),
        ) {
            let mut input = Vec::new();
            for (body, lower_case, content_type) in &frames {
                let bytes = match body {
                    Body::Message(message) => message.to_string().into_bytes(),
                    Body::Garbage(bytes) => bytes.clone(),
                };
                input.extend(header(bytes.len(), *lower_case, *content_type));
                input.extend(bytes);
            }
            let received = bodies(&through_checker(input)).map_err(TestCaseError::fail)?;
            prop_assert_eq!(received.len(), frames.len());
            for ((sent, _, _), received) in frames.iter().zip(&received) {
                match sent {
                    Body::Message(message) => prop_assert_eq!(received, message),
                    Body::Garbage(_) => prop_assert_eq!(&received["method"], MALFORMED_METHOD),
                }
            }
        }

        /// Whatever bytes arrive, the checker ends, and what it passes on
        /// is framed JSON objects only.
        #[test]
        fn fuzz_arbitrary_bytes_pass_on_only_framed_json_objects(
            pieces in prop::collection::vec(
                prop_oneof![
                    any::<Vec<u8>>(),
                    Just(b"Content-Length: 2\r\n\r\n{}".to_vec()),
                    Just(b"Content-Length: 99999999999999999999\r\n\r\n".to_vec()),
                    Just(b"Content-Length: 5\r\n\r\n".to_vec()),
                    Just(b"\r\n".to_vec()),
                ],
                0..8,
            ),
        ) {
            let received = bodies(&through_checker(pieces.concat())).map_err(TestCaseError::fail)?;
            for body in received {
                prop_assert!(body.is_object(), "{body}");
            }
        }
    }
}
