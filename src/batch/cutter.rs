//! The reader's whole job: raw bytes in, chunks cut at record boundaries out.
//!
//! Everything per record (UTF-8 checks, line splitting into strings, CSV fields) is left to
//! the workers ([`super::decode`]): the reader runs beside them, and all it does itself is
//! serial time that caps the scaling with threads. On Kaggle-style CSV (about 1.3 µs of
//! solving per record) decoding in the reader took a third of a worker's time, which held
//! two threads to about 1.4 times one (1.96 times since).

use std::io::{self, Read};

use super::boundary::Boundaries;
use super::InputFormat;

/// Bytes read at a time, at least: few enough system calls, little to copy at a cut.
const MIN_READ: usize = 4 << 10;
/// Bytes read at a time, at most.
const MAX_READ: usize = 1 << 20;
/// Bytes per record assumed before any record has been seen.
const FIRST_RECORD_BYTES: usize = 128;
/// The byte order mark some editors put at the start of a UTF-8 file: not part of the
/// first record.
const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// Consecutive whole records of one input, as raw bytes.
#[derive(Debug)]
pub(crate) struct RawChunk {
    /// The bytes, from the start of a line to the end of a record's last line.
    pub bytes: Vec<u8>,
    /// The 1-based physical line number of the first byte.
    pub first_line: u64,
    /// Records in the chunk.
    pub records: u64,
}

/// Cuts one input into [`RawChunk`]s.
pub(crate) struct ChunkCutter {
    source: Box<dyn Read + Send>,
    boundaries: Boundaries,
    /// Bytes read and not yet handed out: the next chunk's beginning.
    buffer: Vec<u8>,
    /// Physical lines before `buffer`.
    lines_before: u64,
    /// Whether the source is exhausted.
    at_end: bool,
    /// Bytes and records handed out so far, to size reads.
    bytes_out: u64,
    records_out: u64,
    /// The source's size in bytes, when known.
    size: Option<u64>,
    /// An empty buffer to hold the bytes after the next cut.
    spare: Vec<u8>,
    /// Whether the input's start was checked for a byte order mark.
    started: bool,
    /// A read error met after whole records: reported once they are handed out.
    pending_error: Option<io::Error>,
}

impl ChunkCutter {
    /// Cuts `source`, read as `format`; `size` is its length in bytes if known.
    pub(crate) fn new(
        source: Box<dyn Read + Send>,
        format: InputFormat,
        size: Option<u64>,
    ) -> Self {
        ChunkCutter {
            source,
            boundaries: Boundaries::new(format),
            buffer: Vec::new(),
            lines_before: 0,
            at_end: false,
            bytes_out: 0,
            records_out: 0,
            size,
            spare: Vec::new(),
            started: false,
            pending_error: None,
        }
    }

    /// Takes a chunk's buffer back to reuse its memory.
    pub(crate) fn recycle(&mut self, mut buffer: Vec<u8>) {
        if buffer.capacity() > self.spare.capacity() {
            buffer.clear();
            self.spare = buffer;
        }
    }

    /// About how many records are left, judging by the bytes left and the bytes per record
    /// so far; `None` when the source's size is not known.
    pub(crate) fn records_left(&self) -> Option<u64> {
        let left = self.size?.saturating_sub(self.bytes_out);
        Some(left / self.bytes_per_record() as u64)
    }

    fn bytes_per_record(&self) -> usize {
        match self.records_out {
            0 => FIRST_RECORD_BYTES,
            n => (self.bytes_out / n) as usize + 1,
        }
    }

    /// Physical lines handed out so far.
    pub(crate) fn lines_read(&self) -> u64 {
        self.lines_before
    }

    /// The next chunk of `records` records (fewer at the end of the input), `None` when no
    /// record is left. Blank and `#` lines after the last record are not handed out.
    ///
    /// When reading fails (a truncated or corrupt `.gz`), the whole records read before the
    /// failure are handed out first and the error comes with the next call: which records
    /// are processed then does not depend on how the input is cut.
    pub(crate) fn next_chunk(&mut self, records: u64) -> io::Result<Option<RawChunk>> {
        if let Some(error) = self.pending_error.take() {
            return Err(error);
        }
        if !self.started {
            self.started = true;
            while self.buffer.len() < BYTE_ORDER_MARK.len() && !self.at_end {
                self.fill(MIN_READ)?;
            }
            if self.buffer.starts_with(BYTE_ORDER_MARK) {
                self.buffer.drain(..BYTE_ORDER_MARK.len());
            }
        }
        let wanted = records.max(1);
        let mut found = 0u64;
        let mut lines = 0u64;
        let mut scanned = 0usize;
        // Where the whole records scanned so far end: (bytes, lines, records).
        let mut whole = (0, 0, 0);
        loop {
            while let Some(newline) = memchr::memchr(b'\n', &self.buffer[scanned..]) {
                let end = scanned + newline + 1;
                let effect = self.boundaries.line(&self.buffer[scanned..end]);
                scanned = end;
                lines += 1;
                found += u64::from(effect.ends_record);
                if effect.cut_allowed && found == wanted {
                    return Ok(Some(self.cut(scanned, lines, found)));
                }
                if effect.cut_allowed {
                    whole = (scanned, lines, found);
                }
            }
            if self.at_end {
                if scanned < self.buffer.len() {
                    let effect = self.boundaries.line(&self.buffer[scanned..]);
                    found += u64::from(effect.ends_record);
                    lines += 1;
                }
                found += u64::from(self.boundaries.finish());
                if found == 0 {
                    self.buffer = Vec::new();
                    return Ok(None);
                }
                let end = self.buffer.len();
                return Ok(Some(self.cut(end, lines, found)));
            }
            let want =
                (self.bytes_per_record() * (wanted - found) as usize).clamp(MIN_READ, MAX_READ);
            if let Err(error) = self.fill(want) {
                let (end, lines, records) = whole;
                if records == 0 {
                    return Err(error);
                }
                self.pending_error = Some(error);
                return Ok(Some(self.cut(end, lines, records)));
            }
        }
    }

    /// Reads up to `want` more bytes into the buffer (one read call), noting the end.
    fn fill(&mut self, want: usize) -> io::Result<()> {
        let start = self.buffer.len();
        self.buffer.resize(start + want, 0);
        let read = loop {
            match self.source.read(&mut self.buffer[start..]) {
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                result => break result,
            }
        };
        let read = read.inspect_err(|_| self.buffer.truncate(start))?;
        self.buffer.truncate(start + read);
        self.at_end = read == 0;
        Ok(())
    }

    /// Hands out the buffer's first `end` bytes (`lines` lines, `records` records) and keeps
    /// the rest for the next chunk.
    fn cut(&mut self, end: usize, lines: u64, records: u64) -> RawChunk {
        // Room for a chunk like this one, so that reading it needs no reallocation.
        let mut rest = std::mem::take(&mut self.spare);
        rest.reserve(self.buffer.capacity());
        rest.extend_from_slice(&self.buffer[end..]);
        let mut bytes = std::mem::replace(&mut self.buffer, rest);
        bytes.truncate(end);
        let first_line = self.lines_before + 1;
        self.lines_before += lines;
        self.bytes_out += end as u64;
        self.records_out += records;
        RawChunk {
            bytes,
            first_line,
            records,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out its bytes a few at a time, as a pipe might.
    struct Trickle {
        bytes: Vec<u8>,
        position: usize,
        step: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf
                .len()
                .min(self.step)
                .min(self.bytes.len() - self.position);
            buf[..n].copy_from_slice(&self.bytes[self.position..self.position + n]);
            self.position += n;
            Ok(n)
        }
    }

    /// Every chunk of `text` cut `per_chunk` records at a time, read `step` bytes at a time.
    pub(crate) fn cut_all(
        text: &[u8],
        format: InputFormat,
        per_chunk: u64,
        step: usize,
    ) -> Vec<RawChunk> {
        let source = Trickle {
            bytes: text.to_vec(),
            position: 0,
            step,
        };
        let mut cutter = ChunkCutter::new(Box::new(source), format, Some(text.len() as u64));
        let mut chunks = Vec::new();
        while let Some(chunk) = cutter.next_chunk(per_chunk).unwrap() {
            chunks.push(chunk);
        }
        chunks
    }

    fn summary(chunks: &[RawChunk]) -> Vec<(String, u64, u64)> {
        chunks
            .iter()
            .map(|c| {
                (
                    String::from_utf8_lossy(&c.bytes).into_owned(),
                    c.first_line,
                    c.records,
                )
            })
            .collect()
    }

    #[test]
    fn lines_are_cut_after_whole_records_with_their_first_line_numbers() {
        for step in [1, 3, 4096] {
            let chunks = cut_all(b"a\n\n# c\nb\r\nc\nd", InputFormat::Lines, 2, step);
            assert_eq!(
                summary(&chunks),
                vec![
                    ("a\n\n# c\nb\r\n".to_string(), 1, 2),
                    ("c\nd".to_string(), 5, 2)
                ],
                "step {step}"
            );
        }
    }

    #[test]
    fn a_byte_order_mark_at_the_start_is_dropped() {
        for step in [1, 2, 4096] {
            let chunks = cut_all(
                b"\xEF\xBB\xBFa\nb\xEF\xBB\xBF\n",
                InputFormat::Lines,
                1,
                step,
            );
            assert_eq!(
                summary(&chunks),
                vec![("a\n".to_string(), 1, 1), ("b\u{feff}\n".to_string(), 2, 1)],
                "step {step}"
            );
        }
    }

    #[test]
    fn csv_is_cut_only_outside_quotes() {
        let text = b"h\n\"a\nb\",1\n\"c,\"\"d\"\"\n\ne\",2\n3,4\n";
        for step in [1, 5, 4096] {
            let chunks = cut_all(text, InputFormat::Csv, 1, step);
            assert_eq!(
                summary(&chunks),
                vec![
                    ("h\n".to_string(), 1, 1),
                    ("\"a\nb\",1\n".to_string(), 2, 1),
                    ("\"c,\"\"d\"\"\n\ne\",2\n".to_string(), 4, 1),
                    ("3,4\n".to_string(), 7, 1),
                ],
                "step {step}"
            );
        }
    }

    #[test]
    fn blocks_are_cut_at_the_blank_line_that_ends_them() {
        let chunks = cut_all(b"10\n# c\n01\n\n\n11\n00\n", InputFormat::Blocks, 1, 2);
        assert_eq!(
            summary(&chunks),
            vec![
                ("10\n# c\n01\n\n".to_string(), 1, 1),
                ("\n11\n00\n".to_string(), 5, 1),
            ]
        );
    }

    #[test]
    fn trailing_comments_give_no_chunk() {
        let chunks = cut_all(b"a\n# end\n\n", InputFormat::Lines, 1, 4096);
        assert_eq!(summary(&chunks), vec![("a\n".to_string(), 1, 1)]);
        assert!(cut_all(b"# only\n\n", InputFormat::Csv, 4, 4096).is_empty());
    }

    #[test]
    fn a_record_larger_than_a_read_is_kept_whole() {
        let long = "x".repeat(3 * MAX_READ);
        let text = format!("{long}\nshort\n");
        let chunks = cut_all(text.as_bytes(), InputFormat::Lines, 1, usize::MAX);
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].bytes.len(), long.len() + 1);
        assert_eq!((chunks[1].first_line, chunks[1].records), (2, 1));
    }
}
