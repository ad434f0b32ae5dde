//! The reader's whole job: raw bytes in, chunks cut at record boundaries out.
//!
//! Everything per record (UTF-8 checks, line splitting into strings, CSV fields) is left to
//! the workers ([`super::decode`]): the reader runs beside them, and all it does itself is
//! serial time that caps the scaling with threads. On Kaggle-style CSV (about 1.3 µs of
//! solving per record) decoding in the reader took a third of a worker's time, which held
//! two threads to about 1.4 times one (1.96 times since).
//!
//! Hostile inputs are met here too, in time linear in their size and memory bounded by
//! the longest record allowed ([`InputSpec::max_line_bytes`](super::InputSpec)): a line
//! longer than that, a quoted CSV field that is never closed or a block of lines too long
//! becomes a record of its own, a [`Fault`], which the workers turn into an error row. Its
//! bytes are dropped as they are read, never kept whole; reading goes on after it.

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};

use super::boundary::{csv_open_quote, find_line_end, lines, Boundaries, LineEffect, LineEnd};
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

/// `bytes` without the byte order mark they may start with.
pub(crate) fn without_byte_order_mark(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BYTE_ORDER_MARK).unwrap_or(bytes)
}

/// A record the reader could not cut whole: it becomes an error row with this message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Fault {
    /// One physical line longer than the limit.
    #[error("line {line} is longer than {}", super::counted(*max, "byte"))]
    LineTooLong {
        /// The line.
        line: u64,
        /// The limit.
        max: usize,
    },
    /// A CSV quoted field still open at the end of the input, or after the limit.
    #[error(
        "the quote at line {line}, column {column} is never closed{}",
        match within { Some(max) => format!(" within {}", super::counted(*max, "byte")), None => " before the end of the input".to_string() }
    )]
    UnclosedQuote {
        /// The quote's line.
        line: u64,
        /// The quote's 1-based column, in characters.
        column: usize,
        /// The limit it went past, or `None` when the input ended first.
        within: Option<usize>,
    },
    /// A record of several lines (a block, or a CSV record with a quoted field) longer
    /// than the limit.
    #[error(
        "the record from line {line} on is longer than {}",
        super::counted(*max, "byte")
    )]
    RecordTooLong {
        /// The record's first line.
        line: u64,
        /// The limit.
        max: usize,
    },
}

impl Fault {
    /// The error row of the faulty record: the fault, and where reading goes on when
    /// that is not the next line.
    pub(crate) fn row_message(&self) -> String {
        match self {
            Fault::UnclosedQuote { line, .. } => {
                format!("{self}; reading goes on at line {}", line + 1)
            }
            Fault::LineTooLong { .. } | Fault::RecordTooLong { .. } => self.to_string(),
        }
    }
}

/// Consecutive whole records of one input, as raw bytes.
#[derive(Debug)]
pub(crate) struct RawChunk {
    /// The bytes, from the start of a line to the end of a record's last line.
    pub bytes: Vec<u8>,
    /// The 1-based physical line number of the first byte.
    pub first_line: u64,
    /// Records in the chunk.
    pub records: u64,
    /// For CSV records, the number of fields in the header.
    pub header_fields: Option<usize>,
    /// A chunk of one record that could not be cut whole: its line and what is wrong. Its
    /// bytes are then not the record's.
    pub fault: Option<(u64, Fault)>,
    /// Each line of `bytes` as the cutter found it (none in a faulty chunk): decoding
    /// walks these instead of searching the bytes again.
    pub lines: Vec<LineMark>,
}

/// Where a chunk's line ends (after its line ending, from the chunk's start) and what it did
/// to the record structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineMark {
    pub end: usize,
    pub effect: LineEffect,
}

/// Where the scan of the buffer for the next chunk is.
#[derive(Debug, Default)]
struct Scan {
    /// The start of the next line.
    line_start: usize,
    /// Where the search for that line's end goes on (bytes before it hold none).
    searched: usize,
    /// Whole lines scanned.
    lines: u64,
    /// Records ended.
    found: u64,
    /// Where the whole records scanned so far end: (bytes, lines, records).
    whole: (usize, u64, u64),
    /// The record going on from an earlier line: its first byte, and the lines before it.
    open: Option<(usize, u64)>,
}

impl Scan {
    /// The start of the bytes the limit applies to: the open record's, else the line's.
    fn unit_start(&self) -> (usize, u64) {
        self.open.unwrap_or((self.line_start, self.lines))
    }
}

/// Cuts one input into [`RawChunk`]s.
pub(crate) struct ChunkCutter {
    source: Box<dyn Read + Send>,
    format: InputFormat,
    boundaries: Boundaries,
    /// Bytes read and not yet handed out: the next chunk's beginning.
    buffer: Vec<u8>,
    /// Bytes of `buffer`'s allocation that hold values, at least its length: bytes written
    /// before, left past its end by a cut or by the buffer's earlier use. Reading into them
    /// needs no zeroing first.
    initialized: usize,
    /// Physical lines before `buffer`.
    lines_before: u64,
    /// Whether the source is exhausted.
    at_end: bool,
    /// Bytes and records handed out so far, to size reads.
    bytes_out: u64,
    records_out: u64,
    /// The source's size in bytes, when known.
    size: Option<u64>,
    /// A buffer to hold the bytes after the next cut; its length is how many of its bytes
    /// hold values (leftovers of its earlier use).
    spare: Vec<u8>,
    /// Whether the input's start was checked for a byte order mark.
    started: bool,
    /// A read error met after whole records: reported once they are handed out.
    pending_error: Option<io::Error>,
    /// The longest record allowed, in bytes (without its last line ending).
    max_line_bytes: usize,
    /// Fields in the CSV header, once read.
    header_fields: Option<usize>,
    /// What is left to drop of a faulty record at the start of the buffer: line endings
    /// (of lines already counted), then, for a block, lines up to a blank one.
    drop_lines: u64,
    drop_block: bool,
    /// The faulty record's (or long line's) line, for the message when it turns out to be
    /// binary data.
    dropped_record: u64,
    /// Whether the run's stop flag ended the reading while a faulty record was dropped.
    stopped: bool,
    /// The lines scanned for the next chunk, from the buffer's start.
    marks: Vec<LineMark>,
    /// A blank or `#` line longer than the limit, at the start of the buffer: what is left
    /// of it to drop. It is no record, so it gets no row.
    long_line: Option<LongLine>,
}

/// A line too long to scan whole that is not a record (outside any record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LongLine {
    /// Only blanks so far: a record after all if text follows.
    Blank,
    /// A `#` comment: dropped to its end.
    Comment,
}

impl LongLine {
    /// What the line that begins with `text` (no line ending in it) is, if not a record.
    fn of(text: &[u8]) -> Option<LongLine> {
        match text.trim_ascii_start().first() {
            None => Some(LongLine::Blank),
            Some(b'#') => Some(LongLine::Comment),
            Some(_) => None,
        }
    }
}

impl ChunkCutter {
    /// Cuts `source`, read as `format`; `size` is its length in bytes if known. A record
    /// longer than `max_line_bytes` becomes a [`Fault`].
    pub(crate) fn new(
        source: Box<dyn Read + Send>,
        format: InputFormat,
        size: Option<u64>,
        max_line_bytes: usize,
    ) -> Self {
        ChunkCutter {
            source,
            format,
            boundaries: Boundaries::new(format),
            buffer: Vec::new(),
            initialized: 0,
            lines_before: 0,
            at_end: false,
            bytes_out: 0,
            records_out: 0,
            size,
            spare: Vec::new(),
            started: false,
            pending_error: None,
            max_line_bytes,
            header_fields: None,
            drop_lines: 0,
            drop_block: false,
            dropped_record: 0,
            stopped: false,
            marks: Vec::new(),
            long_line: None,
        }
    }

    /// A cutter of no records: an input the run was stopped before it sent anything.
    pub(crate) fn empty(format: InputFormat) -> Self {
        ChunkCutter::new(Box::new(io::empty()), format, Some(0), 0)
    }

    /// Whether the stop flag given to [`next_chunk`](Self::next_chunk) ended the reading
    /// (inside a faulty record too long to be read to its end: an endless line).
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    /// Notes the number of fields in the CSV header: the chunks after it carry it.
    pub(crate) fn set_header_fields(&mut self, fields: usize) {
        self.header_fields = Some(fields);
    }

    /// Takes a buffer back to reuse its memory: its length is how many of its bytes hold
    /// values (it is not emptied first, so that reading into them needs no zeroing).
    pub(crate) fn recycle(&mut self, buffer: Vec<u8>) {
        if buffer.capacity() > self.spare.capacity() {
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

    /// The next chunk of `records` records (fewer at the end of the input, or before a
    /// faulty record, which comes alone in a chunk), `None` when no record is left. Blank
    /// and `#` lines after the last record are not handed out.
    ///
    /// When reading fails (a truncated or corrupt `.gz`), the whole records read before the
    /// failure are handed out first and the error comes with the next call: which records
    /// are processed then does not depend on how the input is cut. A faulty record that
    /// holds NUL bytes (binary data, such as `/dev/zero`) is handed out, and the next call
    /// fails. `stop`, once set, ends the reading of a faulty record's rest (which may never
    /// end: a line without a line ending from a pipe), as if the input ended there.
    ///
    /// A source that has nothing to give for now fails its read with
    /// [`io::ErrorKind::WouldBlock`] (an idle pipe, see `input.rs`): the whole records read
    /// are then handed out at once, and with none the call fails with that error; calling
    /// again goes on where it was.
    pub(crate) fn next_chunk(
        &mut self,
        records: u64,
        stop: Option<&AtomicBool>,
    ) -> io::Result<Option<RawChunk>> {
        if self.stopped {
            return Ok(None);
        }
        if let Some(error) = self.pending_error.take() {
            return Err(error);
        }
        if !self.started {
            while self.buffer.len() < BYTE_ORDER_MARK.len() && !self.at_end {
                self.fill(MIN_READ)?;
            }
            self.started = true;
            if self.buffer.starts_with(BYTE_ORDER_MARK) {
                self.buffer.drain(..BYTE_ORDER_MARK.len());
            }
        }
        loop {
            self.drop_faulty_rest(stop)?;
            if let Some(fault) = self.skip_long_line(stop)? {
                return Ok(Some(fault));
            }
            if self.stopped {
                return Ok(None);
            }
            let chunk = self.scan_chunk(records)?;
            // A blank or `#` line too long to scan whole is skipped by the next turn.
            if self.long_line.is_none() {
                return Ok(chunk);
            }
        }
    }

    /// Scans the buffer, reading on as needed, for the next chunk of `records` records:
    /// `next_chunk` without the dropping of faulty records and long lines.
    fn scan_chunk(&mut self, records: u64) -> io::Result<Option<RawChunk>> {
        let wanted = records.max(1);
        let max = self.max_line_bytes;
        let mut scan = Scan::default();
        self.marks.clear();
        loop {
            loop {
                match find_line_end(&self.buffer, scan.searched, self.at_end) {
                    LineEnd::Found { content, end } => {
                        if let Some(done) = self.take_line(&mut scan, content, end, wanted) {
                            return done;
                        }
                    }
                    LineEnd::NotYet { searched } => {
                        scan.searched = searched;
                        // Only text of the line begun counts: with none yet, the record
                        // so far ends at the last line's text (its line ending is not
                        // part of it), which `take_line` measured.
                        if searched > scan.line_start && searched - scan.unit_start().0 > max {
                            return self.fault(scan, false);
                        }
                        break;
                    }
                }
            }
            if self.at_end {
                let end = self.buffer.len();
                if scan.line_start < end {
                    // The last line, without a line ending.
                    if let Some(done) = self.take_line(&mut scan, end, end, wanted) {
                        return done;
                    }
                }
                if self.format == InputFormat::Csv && self.boundaries.is_open() {
                    return self.fault(scan, true);
                }
                scan.found += u64::from(self.boundaries.finish());
                if scan.found == 0 {
                    self.buffer = Vec::new();
                    self.initialized = 0;
                    return Ok(None);
                }
                return Ok(Some(self.cut(end, scan.lines, scan.found)));
            }
            let partial = self.buffer.len() - scan.line_start;
            let left = usize::try_from(wanted - scan.found).unwrap_or(usize::MAX);
            let want = (self.bytes_per_record().saturating_mul(left))
                .clamp(MIN_READ, MAX_READ)
                .max(partial.min(MAX_READ));
            if let Err(error) = self.fill(want) {
                let (end, lines, records) = scan.whole;
                if error.kind() == io::ErrorKind::WouldBlock {
                    // Nothing more for now (an idle pipe): the whole records go out, and
                    // the next call scans what follows them again, from between records.
                    self.boundaries = Boundaries::new(self.format);
                    if records == 0 {
                        return Err(error);
                    }
                    return Ok(Some(self.cut(end, lines, records)));
                }
                if records == 0 {
                    return Err(error);
                }
                self.pending_error = Some(error);
                return Ok(Some(self.cut(end, lines, records)));
            }
        }
    }

    /// Takes the line from `scan.line_start` whose text ends at `content` and line ending
    /// at `end`: the call's result when a chunk is ready or a fault found, else `None`.
    #[inline]
    fn take_line(
        &mut self,
        scan: &mut Scan,
        content: usize,
        end: usize,
        wanted: u64,
    ) -> Option<io::Result<Option<RawChunk>>> {
        if content - scan.unit_start().0 > self.max_line_bytes {
            return Some(self.fault(std::mem::take(scan), false));
        }
        let effect = self.boundaries.line(&self.buffer[scan.line_start..end]);
        self.marks.push(LineMark { end, effect });
        if !self.boundaries.is_open() {
            scan.open = None;
        } else if scan.open.is_none() {
            scan.open = Some((scan.line_start, scan.lines));
        }
        scan.lines += 1;
        scan.line_start = end;
        scan.searched = end;
        scan.found += u64::from(effect.ends_record);
        if effect.cut_allowed {
            if scan.found == wanted {
                return Some(Ok(Some(self.cut(end, scan.lines, scan.found))));
            }
            scan.whole = (end, scan.lines, scan.found);
        }
        None
    }

    /// Handles a faulty record, the one open (or starting) where `scan` stopped: hands out
    /// the whole records before it, if any (the record is found again by the next call),
    /// else a chunk of the faulty record alone, and sets its bytes to be dropped. `at_eof`:
    /// the input ended inside a CSV quoted field; else the record is too long.
    fn fault(&mut self, scan: Scan, at_eof: bool) -> io::Result<Option<RawChunk>> {
        let (whole_end, whole_lines, whole_records) = scan.whole;
        // Chunks start between records, as at the start of the input.
        self.boundaries = Boundaries::new(self.format);
        if whole_records > 0 {
            return Ok(Some(self.cut(whole_end, whole_lines, whole_records)));
        }
        let (start, lines_before_it) = scan.unit_start();
        let max = self.max_line_bytes;
        let line = self.lines_before + lines_before_it + 1;
        if !at_eof && scan.open.is_none() {
            let seen = start.saturating_add(max).saturating_add(1);
            if let Some(kind) = LongLine::of(&self.buffer[start..seen.min(self.buffer.len())]) {
                // Not a record: the lines before it are not either (no whole record was
                // scanned). Its rest is dropped by `skip_long_line`.
                self.lines_before += lines_before_it;
                self.bytes_out += start as u64;
                self.buffer.drain(..start);
                self.dropped_record = line;
                self.long_line = Some(kind);
                return Ok(None);
            }
        }
        // Only the bytes up to the limit decide what the fault is: how the input was read
        // does not change it.
        let end = if at_eof {
            self.buffer.len()
        } else {
            start
                .saturating_add(max)
                .saturating_add(1)
                .min(self.buffer.len())
        };
        let bytes = &self.buffer[start..end];
        let one_line = memchr::memchr2(b'\n', b'\r', bytes).is_none();
        let (fault, last_line) = match self.format {
            InputFormat::Csv => match csv_open_quote(bytes) {
                Some((quote_line, line_start, offset)) if at_eof || !one_line => {
                    let column = bytes[line_start..offset]
                        .iter()
                        .filter(|&&byte| byte & 0xC0 != 0x80)
                        .count()
                        + 1;
                    let fault = Fault::UnclosedQuote {
                        line: line + quote_line,
                        column,
                        within: (!at_eof).then_some(max),
                    };
                    (fault, quote_line)
                }
                _ if one_line => (Fault::LineTooLong { line, max }, 0),
                _ => {
                    let last_line = lines(bytes).count() as u64 - 1;
                    (Fault::RecordTooLong { line, max }, last_line)
                }
            },
            _ if one_line => (Fault::LineTooLong { line, max }, 0),
            _ => (Fault::RecordTooLong { line, max }, 0),
        };
        // The blank and `#` lines before the record go with it.
        let first_line = self.lines_before + 1;
        self.lines_before += lines_before_it;
        self.bytes_out += start as u64;
        self.buffer.drain(..start);
        self.records_out += 1;
        self.dropped_record = line;
        if self.format == InputFormat::Blocks {
            self.drop_block = true;
        } else {
            self.lines_before += last_line + 1;
            self.drop_lines = last_line + 1;
        }
        Ok(Some(RawChunk {
            bytes: Vec::new(),
            first_line,
            records: 1,
            header_fields: self.header_fields,
            fault: Some((line, fault)),
            lines: Vec::new(),
        }))
    }

    /// Drops what is left of a faulty record at the start of the buffer, reading on as
    /// needed: its lines up to `drop_lines` line endings, then for a block its lines up
    /// to a blank one. Fails when they hold a NUL byte: the input is binary data. Gives up,
    /// marked [`stopped`](Self::stopped), once `stop` is set.
    fn drop_faulty_rest(&mut self, stop: Option<&AtomicBool>) -> io::Result<()> {
        let max = self.max_line_bytes;
        // The start of the line being dropped, and where the search for its end goes on.
        let (mut start, mut searched) = (0, 0);
        while self.drop_lines > 0 || self.drop_block {
            match find_line_end(&self.buffer, searched, self.at_end) {
                LineEnd::Found { content, end } => {
                    if self.drop_lines > 0 {
                        self.drop_lines -= 1;
                    } else {
                        self.lines_before += 1;
                        let text = &self.buffer[start..content];
                        self.drop_block = text.len() > max || !text.trim_ascii().is_empty();
                    }
                    (start, searched) = (end, end);
                    continue;
                }
                LineEnd::NotYet { searched: now } => {
                    searched = now;
                    if self.drop_lines > 0 {
                        // All of the line so far goes, but a `\r` that may start a `\r\n`.
                        start = now;
                    } else if now - start > max {
                        // A line too long to keep is never blank: it is dropped whole.
                        self.lines_before += 1;
                        self.drop_lines = 1;
                        continue;
                    }
                }
            }
            // More bytes are needed: those before `start` go first.
            self.drop_front(start)?;
            searched -= start;
            start = 0;
            if self.at_end {
                // The last line, without a line ending.
                let end = self.buffer.len();
                if self.drop_lines == 0 && end > 0 {
                    self.lines_before += 1;
                }
                self.drop_front(end)?;
                self.drop_lines = 0;
                self.drop_block = false;
                return Ok(());
            }
            if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                self.stopped = true;
                return Ok(());
            }
            self.fill(MAX_READ)?;
        }
        self.drop_front(start)
    }

    /// Drops the text of the long blank or `#` line at the start of the buffer, reading on
    /// as needed, up to its line ending (kept: the line then reads as a blank one). A
    /// "blank" line that goes on with text after all is a record too long: it comes back
    /// as a faulty chunk. Gives up, marked [`stopped`](Self::stopped), once `stop` is set.
    fn skip_long_line(&mut self, stop: Option<&AtomicBool>) -> io::Result<Option<RawChunk>> {
        while let Some(kind) = self.long_line {
            let found = match kind {
                LongLine::Comment => memchr::memchr2(b'\n', b'\r', &self.buffer),
                LongLine::Blank => self
                    .buffer
                    .iter()
                    .position(|&byte| !matches!(byte, b' ' | b'\t' | b'\x0C')),
            };
            let Some(at) = found else {
                self.drop_front(self.buffer.len())?;
                if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                    self.stopped = true;
                    return Ok(None);
                }
                self.fill(MAX_READ)?;
                if self.at_end {
                    // The last line, without a line ending.
                    self.lines_before += 1;
                    self.long_line = None;
                }
                continue;
            };
            self.drop_front(at)?;
            self.long_line = match self.buffer[0] {
                b'\n' | b'\r' => None,
                b'#' => Some(LongLine::Comment),
                _ => {
                    self.long_line = None;
                    return Ok(Some(self.long_blank_fault()));
                }
            };
        }
        Ok(None)
    }

    /// The faulty chunk of a line that began blank for longer than the limit and then
    /// went on with text: a record too long. Its rest is set to be dropped.
    fn long_blank_fault(&mut self) -> RawChunk {
        let line = self.lines_before + 1;
        let max = self.max_line_bytes;
        self.records_out += 1;
        self.dropped_record = line;
        if self.format == InputFormat::Blocks {
            self.drop_block = true;
        } else {
            self.lines_before += 1;
            self.drop_lines = 1;
        }
        RawChunk {
            bytes: Vec::new(),
            first_line: line,
            records: 1,
            header_fields: self.header_fields,
            fault: Some((line, Fault::LineTooLong { line, max })),
            lines: Vec::new(),
        }
    }

    /// Drops the buffer's first `end` bytes, of a faulty record; fails when they hold a
    /// NUL byte (so do those of a long blank or `#` line).
    fn drop_front(&mut self, end: usize) -> io::Result<()> {
        if memchr::memchr(0, &self.buffer[..end]).is_some() {
            self.drop_lines = 0;
            self.drop_block = false;
            let line = self.dropped_record;
            let what = match self.long_line {
                Some(_) => format!("line {line}"),
                None => format!("the record at line {line}"),
            };
            let message = format!("{what} holds NUL bytes: this is binary data, not text");
            return Err(io::Error::new(io::ErrorKind::InvalidData, message));
        }
        self.bytes_out += end as u64;
        self.buffer.drain(..end);
        Ok(())
    }

    /// Reads up to `want` more bytes into the buffer (one read call), noting the end.
    ///
    /// Only bytes that never held a value are zeroed before the read: zeroing all `want`
    /// bytes each time was 0.45% of a two-thread run over easy Sudokus, on the thread
    /// that both reads and writes (`perf`, 2026-11-28).
    fn fill(&mut self, want: usize) -> io::Result<()> {
        let start = self.buffer.len();
        let end = start + want;
        let allocation = self.buffer.as_ptr();
        self.buffer.reserve(want);
        if self.buffer.as_ptr() != allocation {
            // Moved: only the bytes up to the length came along.
            self.initialized = start;
        }
        let held = self.initialized.clamp(start, end);
        // SAFETY: `initialized` (at most the capacity) counts bytes of this allocation that
        // were written before; truncating and draining leave them holding their values.
        unsafe { self.buffer.set_len(held) };
        self.buffer.resize(end, 0);
        self.initialized = self.initialized.max(end);
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
        // Room for a chunk like this one, so that reading it needs no reallocation. Exact:
        // the amortised `reserve` doubles a recycled buffer a little smaller than this one,
        // and buffers passed round the pool then grow without bound.
        let mut rest = std::mem::take(&mut self.spare);
        let (allocation, held) = (rest.as_ptr(), rest.len());
        rest.clear();
        rest.reserve_exact(self.buffer.capacity());
        let held = if rest.as_ptr() == allocation { held } else { 0 };
        rest.extend_from_slice(&self.buffer[end..]);
        self.initialized = held.max(rest.len());
        let mut bytes = std::mem::replace(&mut self.buffer, rest);
        bytes.truncate(end);
        let first_line = self.lines_before + 1;
        self.lines_before += lines;
        self.bytes_out += end as u64;
        self.records_out += records;
        // Lines scanned past the cut (of a record left open) are scanned again with the
        // next chunk.
        // The next chunk's marks start with room for as many lines as this one's.
        let room = Vec::with_capacity(self.marks.capacity());
        let mut marks = std::mem::replace(&mut self.marks, room);
        marks.truncate(lines as usize);
        RawChunk {
            bytes,
            first_line,
            records,
            header_fields: self.header_fields,
            fault: None,
            lines: marks,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn a_limit_of_one_byte_is_singular() {
        let line = Fault::LineTooLong { line: 3, max: 1 };
        assert_eq!(line.to_string(), "line 3 is longer than 1 byte");
        let record = Fault::RecordTooLong { line: 3, max: 1 };
        assert_eq!(
            record.to_string(),
            "the record from line 3 on is longer than 1 byte"
        );
        let quote = Fault::UnclosedQuote {
            line: 3,
            column: 2,
            within: Some(1),
        };
        assert_eq!(
            quote.to_string(),
            "the quote at line 3, column 2 is never closed within 1 byte"
        );
        let line = Fault::LineTooLong { line: 3, max: 2 };
        assert_eq!(line.to_string(), "line 3 is longer than 2 bytes");
    }

    /// Hands out its bytes a few at a time, as a pipe might.
    struct Trickle {
        bytes: Vec<u8>,
        position: usize,
        step: usize,
        /// Whether every other read finds nothing ready (`WouldBlock`), as an idle pipe.
        stutter: bool,
        paused: bool,
    }

    impl Trickle {
        fn new(bytes: &[u8], step: usize, stutter: bool) -> Self {
            Trickle {
                bytes: bytes.to_vec(),
                position: 0,
                step,
                stutter,
                paused: false,
            }
        }
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.stutter {
                self.paused = !self.paused;
                if self.paused {
                    return Err(io::ErrorKind::WouldBlock.into());
                }
            }
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
        cut_with_limit(text, format, per_chunk, step, usize::MAX).unwrap()
    }

    /// Every chunk of `text` as [`cut_all`] cuts it, with records of at most `max` bytes;
    /// an error ends the chunks.
    pub(crate) fn cut_with_limit(
        text: &[u8],
        format: InputFormat,
        per_chunk: u64,
        step: usize,
        max: usize,
    ) -> Result<Vec<RawChunk>, (Vec<RawChunk>, io::Error)> {
        cut_source(Trickle::new(text, step, false), format, per_chunk, max)
    }

    /// Every chunk the cutter gives from `source`, the call made again after each
    /// `WouldBlock`; an error ends the chunks.
    fn cut_source(
        source: Trickle,
        format: InputFormat,
        per_chunk: u64,
        max: usize,
    ) -> Result<Vec<RawChunk>, (Vec<RawChunk>, io::Error)> {
        let size = Some(source.bytes.len() as u64);
        let mut cutter = ChunkCutter::new(Box::new(source), format, size, max);
        let mut chunks = Vec::new();
        loop {
            match cutter.next_chunk(per_chunk, None) {
                Ok(Some(chunk)) => chunks.push(chunk),
                Ok(None) => return Ok(chunks),
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                Err(error) => return Err((chunks, error)),
            }
        }
    }

    /// The marks of `bytes`'s lines, found afresh as the cutter finds them.
    pub(crate) fn marks_of(bytes: &[u8], format: InputFormat) -> Vec<LineMark> {
        let mut boundaries = Boundaries::new(format);
        let mut end = 0;
        let marks = lines(bytes).map(|line| {
            end += line.len();
            let effect = boundaries.line(line);
            LineMark { end, effect }
        });
        marks.collect()
    }

    fn summary(chunks: &[RawChunk]) -> Vec<(String, u64, u64)> {
        chunks
            .iter()
            .map(|c| {
                let text = match &c.fault {
                    Some((line, fault)) => format!("!{line}: {}", fault.row_message()),
                    None => String::from_utf8_lossy(&c.bytes).into_owned(),
                };
                (text, c.first_line, c.records)
            })
            .collect()
    }

    /// The chunks of `text` as [`summary`] gives them cut a record at a time, checked to
    /// give the same records (decoded, with their lines) whatever the number of records
    /// asked for and the bytes each read gives.
    fn same_every_way(text: &[u8], format: InputFormat, max: usize) -> Vec<(String, u64, u64)> {
        let records = |chunks: &[RawChunk]| -> Vec<(u64, String)> {
            let decoded = chunks.iter().flat_map(|chunk| {
                if chunk.fault.is_none() {
                    assert_eq!(chunk.lines, marks_of(&chunk.bytes, format), "{chunk:?}");
                }
                let records = crate::batch::decode::decode_owned(chunk, format);
                assert_eq!(records.len() as u64, chunk.records, "{chunk:?}");
                records
            });
            decoded
                .map(|(line, content)| (line, format!("{content:?}")))
                .collect()
        };
        let first = cut_with_limit(text, format, 1, 4096, max).unwrap();
        let expected = records(&first);
        for per_chunk in [1, 2, 3, 1000] {
            for step in [1, 2, 3, 7, 4096] {
                let chunks = cut_with_limit(text, format, per_chunk, step, max).unwrap();
                assert_eq!(
                    records(&chunks),
                    expected,
                    "{per_chunk} per chunk, step {step}"
                );
            }
        }
        // The same records when the source has nothing ready every other read (an idle
        // pipe), whatever whole records are handed out early.
        for per_chunk in [1, 1000] {
            for step in [1, 7, 4096] {
                let source = Trickle::new(text, step, true);
                let chunks = cut_source(source, format, per_chunk, max).unwrap();
                assert_eq!(
                    records(&chunks),
                    expected,
                    "stuttering, {per_chunk} per chunk, step {step}"
                );
            }
        }
        summary(&first)
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
    fn a_lone_carriage_return_ends_a_line_in_every_format() {
        for step in [1, 2, 4096] {
            let chunks = cut_all(b"a\rb\r\nc\r\rd", InputFormat::Lines, 1, step);
            assert_eq!(
                summary(&chunks),
                vec![
                    ("a\r".to_string(), 1, 1),
                    ("b\r\n".to_string(), 2, 1),
                    ("c\r".to_string(), 3, 1),
                    ("\rd".to_string(), 4, 1),
                ],
                "step {step}"
            );
            let chunks = cut_all(b"h\r\"x\ry\",1\r2,3", InputFormat::Csv, 1, step);
            assert_eq!(
                summary(&chunks),
                vec![
                    ("h\r".to_string(), 1, 1),
                    ("\"x\ry\",1\r".to_string(), 2, 1),
                    ("2,3".to_string(), 4, 1),
                ],
                "step {step}"
            );
        }
    }

    #[test]
    fn reading_a_line_without_end_is_linear() {
        // 8 MiB in one line, read 4 KiB at a time: searching it again from its start after
        // every read would take thousands of times longer.
        let text = vec![b'x'; 8 << 20];
        let start = std::time::Instant::now();
        let chunks = cut_with_limit(&text, InputFormat::Lines, 1, 4096, usize::MAX).unwrap();
        assert_eq!(chunks.len(), 1);
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn a_line_over_the_limit_is_a_fault_of_its_own() {
        let text = b"ok\n# c\n12345678901\nfine\r\n123456789012\rlast";
        let got = same_every_way(text, InputFormat::Lines, 10);
        assert_eq!(
            got,
            vec![
                ("ok\n".to_string(), 1, 1),
                ("!3: line 3 is longer than 10 bytes".to_string(), 2, 1),
                ("fine\r\n".to_string(), 4, 1),
                ("!5: line 5 is longer than 10 bytes".to_string(), 5, 1),
                ("last".to_string(), 6, 1),
            ]
        );
        // Exactly the limit is allowed, with any line ending.
        for text in [&b"1234567890\r\nb"[..], b"1234567890\rb", b"1234567890"] {
            let got = same_every_way(text, InputFormat::Lines, 10);
            assert!(
                got.iter().all(|(text, _, _)| !text.starts_with('!')),
                "{got:?}"
            );
        }
    }

    #[test]
    fn blank_and_comment_lines_over_the_limit_are_skipped_not_faults() {
        let text = b"ok\n#  a long comment\n            \n   # indented long comment\n  \t  \t     x\nlast\n             ";
        for format in [InputFormat::Lines, InputFormat::Csv] {
            let got = same_every_way(text, format, 10);
            assert_eq!(
                got,
                vec![
                    ("ok\n".to_string(), 1, 1),
                    ("!5: line 5 is longer than 10 bytes".to_string(), 5, 1),
                    ("last\n".to_string(), 6, 1),
                ],
                "{format:?}"
            );
        }
        let text = b"10\n01\n\n#  a long comment\n   \t          \n11\n\n";
        let got = same_every_way(text, InputFormat::Blocks, 10);
        assert_eq!(
            got,
            vec![
                ("10\n01\n\n".to_string(), 1, 1),
                ("\n11\n\n".to_string(), 5, 1),
            ]
        );
    }

    #[test]
    fn an_unclosed_quote_ends_at_its_line_and_reading_goes_on() {
        let text = b"h,i\n1,2\n3,\"oops\n4,5\n6,7\n";
        let got = same_every_way(text, InputFormat::Csv, 1 << 20);
        assert_eq!(
            got,
            vec![
                ("h,i\n".to_string(), 1, 1),
                ("1,2\n".to_string(), 2, 1),
                (
                    "!3: the quote at line 3, column 3 is never closed before the end of the \
                     input; reading goes on at line 4"
                        .to_string(),
                    3,
                    1
                ),
                ("4,5\n".to_string(), 4, 1),
                ("6,7\n".to_string(), 5, 1),
            ]
        );
        // Over the limit: the same, found before the end of the input.
        let text = b"h\n\"a\nb\",\"c\nddddddddddddddd\nx\n";
        let got = same_every_way(text, InputFormat::Csv, 12);
        assert_eq!(
            got,
            vec![
                ("h\n".to_string(), 1, 1),
                (
                    "!2: the quote at line 3, column 4 is never closed within 12 bytes; \
                     reading goes on at line 4"
                        .to_string(),
                    2,
                    1
                ),
                ("!4: line 4 is longer than 12 bytes".to_string(), 4, 1),
                ("x\n".to_string(), 5, 1),
            ]
        );
    }

    #[test]
    fn a_block_over_the_limit_is_dropped_up_to_its_blank_line() {
        let text = b"10\n01\n\n111\n000\n1111111111111\n# c\n000\n\n01\n";
        let got = same_every_way(text, InputFormat::Blocks, 10);
        assert_eq!(
            got,
            vec![
                ("10\n01\n\n".to_string(), 1, 1),
                (
                    "!4: the record from line 4 on is longer than 10 bytes".to_string(),
                    4,
                    1
                ),
                ("01\n".to_string(), 10, 1),
            ]
        );
    }

    #[test]
    fn binary_data_in_a_faulty_record_stops_the_reading_after_it() {
        let mut text = b"ok\n".to_vec();
        text.extend(std::iter::repeat_n(0u8, 100));
        text.extend(b"\nnever read\n");
        for step in [1, 7, 4096] {
            let (chunks, error) =
                cut_with_limit(&text, InputFormat::Lines, 1, step, 10).unwrap_err();
            assert_eq!(
                summary(&chunks),
                vec![
                    ("ok\n".to_string(), 1, 1),
                    ("!2: line 2 is longer than 10 bytes".to_string(), 2, 1),
                ]
            );
            assert_eq!(error.kind(), io::ErrorKind::InvalidData);
            assert!(error.to_string().contains("NUL"), "{error}");
        }
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

    #[test]
    fn recycled_buffers_hold_only_the_bytes_read_into_them() {
        // Buffers come back with leftovers of their earlier use (chunks, rows), read into
        // without zeroing: the chunks must still hold exactly the input's bytes. Miri
        // (`cargo +nightly miri test --lib recycled_buffers`) checks that no byte is read
        // before it is written.
        let lines = if cfg!(miri) { 60 } else { 3000 };
        let text: String = (0..lines)
            .map(|n| format!("{n},{}\n", "y".repeat(n % 97)))
            .collect();
        for step in [7, 100, 5000] {
            let source = Trickle::new(text.as_bytes(), step, false);
            let size = Some(text.len() as u64);
            let mut cutter = ChunkCutter::new(Box::new(source), InputFormat::Lines, size, 1 << 16);
            let mut out = Vec::new();
            let mut leftovers = vec![vec![b'#'; 10], Vec::with_capacity(1 << 16), vec![b'%'; 900]];
            for records in (1..).map(|n| n % 13 + 1) {
                if let Some(buffer) = leftovers.pop() {
                    cutter.recycle(buffer);
                }
                let Some(chunk) = cutter.next_chunk(records, None).unwrap() else {
                    break;
                };
                out.extend_from_slice(&chunk.bytes);
                leftovers.insert(0, chunk.bytes);
            }
            assert_eq!(String::from_utf8(out).unwrap(), text, "step {step}");
        }
    }
}
