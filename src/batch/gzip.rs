//! Reading a gzip input of one or more members, and saying so when bytes that are not
//! gzip follow the compressed data.

use std::io::{self, BufRead, Read};

use flate2::bufread::GzDecoder;

/// The decompressed bytes of every gzip member of a stream, one after the other (as
/// `gzip -d` gives them). Zero bytes after the last member (padding) are skipped; any other
/// bytes there, or after the padding, fail the read with [`io::ErrorKind::InvalidData`] and a message that says
/// the data before them was read whole, where a reader of members only said `unexpected
/// end of file` or `invalid gzip header`, as if the file were cut short.
pub(crate) struct GzipMembers<R: BufRead> {
    state: Members<R>,
    /// Members read whole.
    members: u64,
}

enum Members<R: BufRead> {
    /// Within a member.
    Decoding(GzDecoder<R>),
    /// After a member: the next one, padding, or the end; after padding (`true`), only
    /// more padding or the end (as `gzip -d` reads it).
    Between(R, bool),
    /// Taken out while the state changes.
    Moving,
}

impl<R: BufRead> GzipMembers<R> {
    /// A reader of the members of the gzip stream `inner`, which starts with one.
    pub(crate) fn new(inner: R) -> Self {
        GzipMembers {
            state: Members::Decoding(GzDecoder::new(inner)),
            members: 0,
        }
    }
}

impl<R: BufRead> GzipMembers<R> {
    /// `error` of a member after the first, saying which member it is; a read to try
    /// again (a pipe with nothing yet) is left as it is.
    fn members_before(&self, error: io::Error) -> io::Error {
        use io::ErrorKind::{Interrupted, WouldBlock};
        if self.members == 0 || matches!(error.kind(), WouldBlock | Interrupted) {
            return error;
        }
        let member = self.members + 1;
        io::Error::new(error.kind(), format!("gzip member {member}: {error}"))
    }
}

impl<R: BufRead> Read for GzipMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match &mut self.state {
                Members::Decoding(decoder) => {
                    let read = decoder
                        .read(buf)
                        .map_err(|error| self.members_before(error))?;
                    if read > 0 {
                        return Ok(read);
                    }
                    self.members += 1;
                    // The member ended, its trailer checked.
                    let Members::Decoding(decoder) =
                        std::mem::replace(&mut self.state, Members::Moving)
                    else {
                        unreachable!("the state was just matched as decoding");
                    };
                    self.state = Members::Between(decoder.into_inner(), false);
                }
                Members::Between(inner, padded) => {
                    let next = inner.fill_buf()?;
                    if next.is_empty() {
                        return Ok(0);
                    }
                    let padding = next.iter().take_while(|&&b| b == 0).count();
                    if padding > 0 {
                        inner.consume(padding);
                        *padded = true;
                        continue;
                    }
                    if *padded || next[0] != 0x1f || next.get(1).is_some_and(|&b| b != 0x8b) {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            "its gzip data ends, and the bytes after it are not gzip",
                        ));
                    }
                    let Members::Between(inner, _) =
                        std::mem::replace(&mut self.state, Members::Moving)
                    else {
                        unreachable!("the state was just matched as between members");
                    };
                    self.state = Members::Decoding(GzDecoder::new(inner));
                }
                Members::Moving => unreachable!("the state is put back before any return"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::io::Write;

    fn gzip(text: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(text).unwrap();
        encoder.finish().unwrap()
    }

    fn read_all(bytes: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        GzipMembers::new(io::BufReader::with_capacity(7, bytes)).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn members_are_read_one_after_the_other_and_zero_padding_is_skipped() {
        let mut bytes = gzip(b"one\n");
        bytes.extend(gzip(b""));
        bytes.extend(gzip(b"two\n"));
        bytes.extend([0; 30]);
        assert_eq!(read_all(&bytes).unwrap(), b"one\ntwo\n");
    }

    #[test]
    fn bytes_after_the_gzip_data_are_named_as_such() {
        let member = gzip(b"two\n");
        let padded_member = [&[0u8; 4][..], &member].concat();
        for tail in [&b"ab"[..], b"trailing text\n", b"\x1fx", &padded_member] {
            let mut bytes = gzip(b"one\n");
            bytes.extend(tail);
            let error = read_all(&bytes).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::InvalidData, "{tail:?}");
            assert!(error.to_string().contains("bytes after it are not gzip"));
        }
    }

    #[test]
    fn a_member_cut_short_is_an_error() {
        let bytes = gzip(&b"a line of text\n".repeat(100));
        assert!(read_all(&bytes[..bytes.len() / 2]).is_err());
        let mut second = gzip(b"one\n");
        second.extend(&bytes[..bytes.len() / 2]);
        let error = read_all(&second).unwrap_err();
        assert!(error.to_string().starts_with("gzip member 2: "), "{error}");
    }
}
