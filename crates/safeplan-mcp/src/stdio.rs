//! The stdio transport with every message answered.
//!
//! rmcp's stdio transport drops a line over its cap (16 MiB) with a log line the client
//! never sees: the client waits forever for the answer to its request. So standard input
//! goes through this filter first. A line under the cap is handed to rmcp unchanged; a line
//! over it is not kept (only its first and last 64 KiB, where the request's `id` is) and is
//! answered here, on standard output, with a JSON-RPC error for its id ("invalid request",
//! with the size and the limit). Without an id to answer, the reason is written to standard
//! error. rmcp's own output passes through the same writer, a whole line at a time, so the
//! two never interleave.

use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest line handed to rmcp: under its own cap, so it never drops one silently.
pub(crate) const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024 - 1024;

/// How much of an oversized line's head and tail is kept to find its id.
const KEEP: usize = 64 * 1024;

/// The `id` of a JSON-RPC request in `text` (the first `"id":` followed by a number or a
/// string), as JSON text.
pub(crate) fn find_id(text: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(text);
    let mut from = 0;
    while let Some(rel) = text[from..].find("\"id\"") {
        let at = from + rel + 4;
        from = at;
        let rest = text[at..].trim_start();
        let Some(rest) = rest.strip_prefix(':') else {
            continue;
        };
        let rest = rest.trim_start();
        if let Some(body) = rest.strip_prefix('"') {
            // A string id: up to the closing quote (ids with escapes are not guessed at).
            if let Some(end) = body.find('"')
                && !body[..end].contains('\\')
            {
                return Some(format!("\"{}\"", &body[..end]));
            }
            continue;
        }
        let digits: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        if !digits.is_empty() && digits != "-" {
            return Some(digits);
        }
    }
    None
}

/// The error response to an oversized message with `id`.
pub(crate) fn oversized_response(id: &str, bytes: usize) -> String {
    let message = format!(
        "the message is {bytes} bytes, over the server's limit of {MAX_MESSAGE_BYTES} bytes for one JSON-RPC message; send smaller inputs, or files under the server's --root by path"
    );
    format!(
        "{}\n",
        serde_json::json!({"jsonrpc": "2.0", "id": serde_json::from_str::<serde_json::Value>(id).unwrap_or(serde_json::Value::Null), "error": {"code": -32600, "message": message}})
    )
}

/// Copy `input` to `to_rmcp` a line at a time, answering lines over the cap on `out`.
async fn filter_input<R, W>(
    input: R,
    mut to_rmcp: W,
    out: Arc<Mutex<Box<dyn AsyncWrite + Send + Unpin>>>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut line: Vec<u8> = Vec::new();
    let mut over = false;
    let mut size = 0usize;
    let mut head: Vec<u8> = Vec::new();
    let mut tail: std::collections::VecDeque<u8> = std::collections::VecDeque::new();
    loop {
        let chunk = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(chunk) => chunk,
        };
        let (part, ends) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..=i], true),
            None => (chunk, false),
        };
        let n = part.len();
        size += n;
        if !over && line.len() + n > MAX_MESSAGE_BYTES {
            over = true;
            head = line[..line.len().min(KEEP)].to_vec();
            tail.extend(line.iter().rev().take(KEEP).rev());
            line = Vec::new();
        }
        if over {
            if head.len() < KEEP {
                head.extend(&part[..part.len().min(KEEP - head.len())]);
            }
            tail.extend(part);
            while tail.len() > KEEP {
                tail.pop_front();
            }
        } else {
            line.extend_from_slice(part);
        }
        reader.consume(n);
        if !ends {
            continue;
        }
        if over {
            let tail_bytes: Vec<u8> = tail.drain(..).collect();
            let id = find_id(&head).or_else(|| find_id(&tail_bytes));
            match id {
                Some(id) => {
                    let mut w = out.lock().await;
                    let _ = w.write_all(oversized_response(&id, size).as_bytes()).await;
                    let _ = w.flush().await;
                }
                None => {
                    #[allow(clippy::print_stderr)]
                    {
                        eprintln!(
                            "safeplan mcp: discarded a message of {size} bytes without a request id (the limit is {MAX_MESSAGE_BYTES} bytes)"
                        );
                    }
                }
            }
            over = false;
            head.clear();
        } else if to_rmcp.write_all(&line).await.is_err() {
            return;
        }
        line.clear();
        size = 0;
    }
    // A last line without a newline is what rmcp would see at end of input.
    if !over && !line.is_empty() {
        let _ = to_rmcp.write_all(&line).await;
    }
    let _ = to_rmcp.shutdown().await;
}

/// Copy rmcp's output to `out` a whole line at a time.
async fn forward_output<R: AsyncRead + Unpin>(
    from_rmcp: R,
    out: Arc<Mutex<Box<dyn AsyncWrite + Send + Unpin>>>,
) {
    let mut reader = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let mut w = out.lock().await;
                if w.write_all(&line).await.is_err() || w.flush().await.is_err() {
                    break;
                }
            }
        }
    }
}

/// The transport for rmcp over `input` and `output` (standard input and output), with the
/// filter and the forwarder running as tasks.
pub(crate) fn transport<R, W>(
    input: R,
    output: W,
) -> (tokio::io::DuplexStream, tokio::io::DuplexStream)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let out: Arc<Mutex<Box<dyn AsyncWrite + Send + Unpin>>> =
        Arc::new(Mutex::new(Box::new(output)));
    let (rmcp_in, feed) = tokio::io::duplex(1 << 16);
    let (rmcp_out, drain) = tokio::io::duplex(1 << 16);
    tokio::spawn(filter_input(input, feed, out.clone()));
    tokio::spawn(forward_output(drain, out));
    (rmcp_in, rmcp_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_found_where_sdks_write_them() {
        assert_eq!(
            find_id(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call"#).as_deref(),
            Some("7")
        );
        assert_eq!(
            find_id(br#"{"id" : "abc-1","jsonrpc":"2.0"}"#).as_deref(),
            Some("\"abc-1\"")
        );
        assert_eq!(find_id(br#"{"params":{"id_x":1},"method":"x"}"#), None);
        assert_eq!(find_id(br#"{"method":"x"}"#), None);
    }
}
