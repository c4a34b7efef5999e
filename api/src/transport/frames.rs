//! The frames of the query channel: how brokers and servers in other processes exchange query
//! traffic over one TCP connection per pair (the receiver's query port), many requests at a
//! time, as Pinot's broker reaches its servers over one Netty channel each: v1 queries, and
//! the multi-stage engine's stage submissions, cancellations and mailbox blocks.
//!
//! A frame is a 4-byte big-endian length of what follows, an 8-byte big-endian request id, a
//! kind byte and the payload. Every request gets one reply under its id:
//!
//! | kind | sent by | payload | reply |
//! |---|---|---|---|
//! | [`Kind::Hello`] | caller, first frame | protocol version (u16 BE), then the `Authorization` value (UTF-8, may be empty) | none (a failure with id 0 if refused) |
//! | [`Kind::Query`] | broker | a [`ServerQuery`](super::ServerQuery) in MessagePack ([`super::wire`]) | [`Kind::Answer`]: the [`ServerResult`](engine::server::result::ServerResult) in MessagePack |
//! | [`Kind::Stage`] | broker | a [`StageRequest`](super::StageRequest) in JSON | [`Kind::Done`] once its workers run |
//! | [`Kind::Cancel`] | broker | a multi-stage query id (u64 BE) | [`Kind::Done`] |
//! | [`Kind::Block`] | stage worker | the [`MailboxKey`](engine::multistage::MailboxKey) as four u64 BE (query, from stage, to stage, to worker), then one message in the engine's block encoding | [`Kind::Done`] once the mailbox took it (the sender's back-pressure) |
//! | [`Kind::Ping`] | caller | none | [`Kind::Done`] at once, from the receiver's reader (the caller's proof of life while it waits: [`super::query_channel`]) |
//! | [`Kind::Failure`] | receiver | HTTP-style status (u16 BE), then the message (UTF-8) | — |
//!
//! Replies come back in the order requests finish, not the order they were sent. A failure
//! with id 0 is about the connection (a refused hello): the receiver closes it after sending.

use async_std::io::{ReadExt, WriteExt};
use futures_lite::{AsyncRead, AsyncWrite};

/// The protocol version a hello names.
pub const VERSION: u16 = 2;

/// Bytes after the length field that every frame has: id and kind.
const HEAD: usize = 9;

/// What a frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Hello = 1,
    Query = 2,
    Answer = 3,
    Failure = 4,
    Stage = 5,
    Cancel = 6,
    Block = 7,
    Done = 8,
    Ping = 9,
}

impl Kind {
    fn from_byte(b: u8) -> Option<Kind> {
        match b {
            1 => Some(Kind::Hello),
            2 => Some(Kind::Query),
            3 => Some(Kind::Answer),
            4 => Some(Kind::Failure),
            5 => Some(Kind::Stage),
            6 => Some(Kind::Cancel),
            7 => Some(Kind::Block),
            8 => Some(Kind::Done),
            9 => Some(Kind::Ping),
            _ => None,
        }
    }
}

/// One frame read off a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub id: u64,
    pub kind: Kind,
    pub payload: Vec<u8>,
}

/// Why no frame could be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The peer closed the connection between frames.
    #[error("connection closed")]
    Closed,
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Bytes that are not a frame of this protocol (the connection cannot continue).
    #[error("{0}")]
    Invalid(String),
    /// A frame over the reader's limit, read past and dropped (the connection goes on).
    #[error("a frame of {bytes} bytes, over the limit of {limit}")]
    TooLarge { id: u64, bytes: usize, limit: usize },
}

/// A frame whose payload `write` appends straight after the header (no payload buffer to
/// copy from); the length is filled in once the payload is written.
fn build(
    id: u64,
    kind: Kind,
    capacity: usize,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), String>,
) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(4 + HEAD + capacity);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&id.to_be_bytes());
    out.push(kind as u8);
    write(&mut out)?;
    let len = u32::try_from(out.len() - 4).map_err(|_| "frame over 4 GiB".to_string())?;
    out[..4].copy_from_slice(&len.to_be_bytes());
    Ok(out)
}

/// A frame of small parts whose payload is `parts` one after another.
fn build_parts(id: u64, kind: Kind, parts: &[&[u8]]) -> Vec<u8> {
    let capacity = parts.iter().map(|p| p.len()).sum();
    let framed = build(id, kind, capacity, |out| {
        parts.iter().for_each(|p| out.extend_from_slice(p));
        Ok(())
    });
    // A payload over 4 GiB cannot be framed; callers bound what they send far below that.
    framed.unwrap_or_default()
}

/// A frame's bytes, ready to write: the header, then `payload`.
pub fn encode(id: u64, kind: Kind, payload: &[u8]) -> Vec<u8> {
    build_parts(id, kind, &[payload])
}

/// A frame whose payload is MessagePack of `value`, written straight after the header.
pub fn encode_msgpack<T: serde::Serialize>(
    id: u64,
    kind: Kind,
    value: &T,
) -> Result<Vec<u8>, String> {
    build(id, kind, 0, |out| {
        rmp_serde::encode::write_named(out, value).map_err(|e| e.to_string())
    })
}

/// A hello frame.
pub fn hello(authorization: Option<&str>) -> Vec<u8> {
    let auth = authorization.unwrap_or("").as_bytes();
    build_parts(0, Kind::Hello, &[&VERSION.to_be_bytes(), auth])
}

/// A hello's version and `Authorization` value.
pub fn read_hello(payload: &[u8]) -> Result<(u16, &str), String> {
    let (version, auth) = payload
        .split_first_chunk::<2>()
        .ok_or("a hello without a version")?;
    let auth = std::str::from_utf8(auth).map_err(|_| "a hello's authorization is not UTF-8")?;
    Ok((u16::from_be_bytes(*version), auth))
}

/// A block frame: `key`, then one encoded mailbox message.
pub fn block(id: u64, key: &engine::multistage::MailboxKey, message: &[u8]) -> Vec<u8> {
    let [q, f, t, w] = [
        key.query_id,
        key.from_stage as u64,
        key.to_stage as u64,
        key.to_worker as u64,
    ]
    .map(u64::to_be_bytes);
    build_parts(id, Kind::Block, &[&q, &f, &t, &w, message])
}

/// A block's mailbox key and encoded message.
pub fn read_block(payload: &[u8]) -> Result<(engine::multistage::MailboxKey, &[u8]), String> {
    let (key, message) = payload
        .split_first_chunk::<32>()
        .ok_or("a block without its mailbox key")?;
    let n = |i: usize| u64::from_be_bytes(key[i * 8..i * 8 + 8].try_into().unwrap_or_default());
    let key = engine::multistage::MailboxKey {
        query_id: n(0),
        from_stage: n(1) as usize,
        to_stage: n(2) as usize,
        to_worker: n(3) as usize,
    };
    Ok((key, message))
}

/// A failure frame.
pub fn failure(id: u64, status: u16, message: &str) -> Vec<u8> {
    build_parts(
        id,
        Kind::Failure,
        &[&status.to_be_bytes(), message.as_bytes()],
    )
}

/// A failure's status and message.
pub fn read_failure(payload: &[u8]) -> (u16, String) {
    match payload.split_first_chunk::<2>() {
        Some((status, message)) => (
            u16::from_be_bytes(*status),
            String::from_utf8_lossy(message).into_owned(),
        ),
        None => (500, "a failure without a status".into()),
    }
}

/// Reads the next frame; a frame longer than `limit` says for its kind is read past without
/// keeping it ([`FrameError::TooLarge`], with its id).
pub async fn read<R: AsyncRead + Unpin>(
    r: &mut R,
    limit: impl Fn(Kind) -> usize,
) -> Result<Frame, FrameError> {
    let mut len = [0u8; 4];
    // A clean end between frames is a close; in the middle of one, an error.
    let first = r.read(&mut len).await?;
    if first == 0 {
        return Err(FrameError::Closed);
    }
    r.read_exact(&mut len[first..]).await?;
    let len = u32::from_be_bytes(len) as usize;
    if len < HEAD {
        return Err(FrameError::Invalid(format!("a frame of {len} bytes")));
    }
    let mut head = [0u8; HEAD];
    r.read_exact(&mut head).await?;
    let (id, kind) = head.split_at(8);
    let id = u64::from_be_bytes(id.try_into().unwrap_or_default());
    let kind = Kind::from_byte(kind[0])
        .ok_or_else(|| FrameError::Invalid(format!("unknown frame kind {}", kind[0])))?;
    let max_bytes = limit(kind);
    if len > max_bytes {
        let rest = (len - HEAD) as u64;
        let skipped = async_std::io::copy(&mut r.take(rest), &mut async_std::io::sink()).await?;
        if skipped < rest {
            return Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof).into());
        }
        return Err(FrameError::TooLarge {
            id,
            bytes: len,
            limit: max_bytes,
        });
    }
    let mut payload = vec![0u8; len - HEAD];
    r.read_exact(&mut payload).await?;
    Ok(Frame { id, kind, payload })
}

/// Writes frames from `outbox` to `w` until the outbox closes or a write fails: whatever has
/// queued up while a write was under way goes out in the next single write.
pub async fn write_all<W: AsyncWrite + Unpin>(
    w: &mut W,
    outbox: &async_std::channel::Receiver<Vec<u8>>,
) -> std::io::Result<()> {
    let mut batch = Vec::new();
    while let Ok(first) = outbox.recv().await {
        if outbox.is_empty() {
            w.write_all(&first).await?;
            continue;
        }
        batch.clear();
        batch.extend_from_slice(&first);
        while let Ok(next) = outbox.try_recv() {
            batch.extend_from_slice(&next);
            if batch.len() >= 1 << 20 {
                break;
            }
        }
        w.write_all(&batch).await?;
    }
    w.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8], max: usize) -> Vec<Result<Frame, String>> {
        async_std::task::block_on(async {
            let mut r = bytes;
            let mut out = Vec::new();
            loop {
                match read(&mut r, |_| max).await {
                    Err(FrameError::Closed) => return out,
                    Err(e) => {
                        out.push(Err(e.to_string()));
                        return out;
                    }
                    Ok(f) => out.push(Ok(f)),
                }
            }
        })
    }

    #[test]
    fn frames_read_back_as_written() {
        let mut bytes = hello(Some("Basic YTpi"));
        bytes.extend(encode(7, Kind::Query, b"abc"));
        bytes.extend(failure(9, 404, "no such table"));
        bytes.extend(encode_msgpack(u64::MAX, Kind::Answer, &vec![1u32, 2]).unwrap());
        let frames: Vec<Frame> = read_all(&bytes, 1 << 20)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(frames.len(), 4);
        assert_eq!(
            read_hello(&frames[0].payload).unwrap(),
            (VERSION, "Basic YTpi")
        );
        assert_eq!((frames[1].id, frames[1].kind), (7, Kind::Query));
        assert_eq!(frames[1].payload, b"abc");
        assert_eq!(
            read_failure(&frames[2].payload),
            (404, "no such table".to_string())
        );
        assert_eq!(frames[3].id, u64::MAX);
        let back: Vec<u32> = rmp_serde::from_slice(&frames[3].payload).unwrap();
        assert_eq!(back, vec![1, 2]);
    }

    #[test]
    fn bad_bytes_are_errors_not_frames() {
        // Shorter than a header, an unknown kind, cut off mid-frame.
        let long = encode(1, Kind::Query, &[0; 100]);
        assert!(read_all(&[0, 0, 0, 3, 1, 2, 3], 50)[0].is_err());
        let mut unknown = encode(1, Kind::Query, b"x");
        unknown[12] = 99;
        assert!(
            read_all(&unknown, 50)[0]
                .as_ref()
                .unwrap_err()
                .contains("kind 99")
        );
        let cut = &long[..long.len() - 1];
        assert!(read_all(cut, 1 << 10)[0].is_err());
        assert!(read_hello(&[1]).is_err());
        assert_eq!(read_failure(&[]).0, 500);
    }

    #[test]
    fn a_frame_over_the_limit_is_read_past_and_the_next_one_read() {
        let mut bytes = encode(3, Kind::Query, &[7; 100]);
        bytes.extend(encode(4, Kind::Query, b"ok"));
        async_std::task::block_on(async {
            let mut r = &bytes[..];
            match read(&mut r, |_| 50).await {
                Err(FrameError::TooLarge { id, bytes, limit }) => {
                    assert_eq!((id, bytes, limit), (3, 109, 50))
                }
                other => panic!("{other:?}"),
            }
            let next = read(&mut r, |_| 50).await.unwrap();
            assert_eq!((next.id, next.payload), (4, b"ok".to_vec()));
            // Cut off while being read past: an error, not a frame.
            let cut = &encode(5, Kind::Query, &[0; 100])[..60];
            let mut r = cut;
            assert!(matches!(read(&mut r, |_| 50).await, Err(FrameError::Io(_))));
        });
    }

    #[test]
    fn a_batch_of_queued_frames_goes_out_whole_and_in_order() {
        async_std::task::block_on(async {
            let (tx, rx) = async_std::channel::unbounded();
            for i in 0..5u64 {
                tx.send(encode(i, Kind::Query, &[i as u8; 3]))
                    .await
                    .unwrap();
            }
            drop(tx);
            let mut out = Vec::new();
            write_all(&mut out, &rx).await.unwrap();
            let ids: Vec<u64> = read_all(&out, 1 << 10)
                .into_iter()
                .map(|f| f.unwrap().id)
                .collect();
            assert_eq!(ids, vec![0, 1, 2, 3, 4]);
        });
    }
}
