//! Where lines and records begin and end, one physical line at a time, for every input
//! format.
//!
//! A physical line ends at `\n`, at `\r\n` or at a `\r` alone (an old Mac line ending), in
//! every format. The reader uses this to cut inputs into chunks at record boundaries and to
//! count records; workers run the very same state machine over a chunk to find its records
//! again, so both always agree on what a line and a record are.

use super::InputFormat;

/// What one physical line did to the record structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineEffect {
    /// The line is a blank or `#` line outside any record: it belongs to no record.
    pub skipped: bool,
    /// A record ended with this line (or, for blocks, just before it).
    pub ends_record: bool,
    /// The input may be cut after this line: no record is open.
    pub cut_allowed: bool,
    /// A CSV line that starts outside quotes and holds no `"`: a record of its own, whose
    /// fields are split at its commas where it lies. False for every other line.
    pub plain: bool,
}

/// Where a CSV parser is inside a record (the states of `csv-core` with default settings
/// that matter for finding the record's end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CsvState {
    /// At the start of a field.
    FieldStart,
    /// Inside an unquoted field (a `"` here is an ordinary character).
    Unquoted,
    /// Inside a quoted field (a newline here belongs to the field).
    Quoted,
    /// Just after a `"` inside a quoted field: the end of the quotes, or half of `""`.
    QuoteInQuoted,
}

/// Follows the record structure of one input, line by line.
#[derive(Debug, Clone)]
pub(crate) struct Boundaries {
    format: InputFormat,
    /// For CSV: the state at the end of the last line when a record is still open.
    csv: Option<CsvState>,
    /// For blocks: a block has started and not yet ended.
    block_open: bool,
}

/// Where the line starting before `from` ends, looking from `from` on in `bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineEnd {
    /// The line's text ends at `content` and its line ending at `end`.
    Found {
        /// Where the line ending starts.
        content: usize,
        /// Just after the line ending.
        end: usize,
    },
    /// No line ending before `searched`: the bytes up to it belong to the line, and the
    /// search goes on from there once more bytes are read (a `\r` at the very end of the
    /// bytes read so far is left unsearched: a `\n` may follow it).
    NotYet {
        /// Where to search from next time.
        searched: usize,
    },
}

/// Finds the end of the line that continues at `from` in `bytes`; `at_end` says that no
/// byte follows `bytes` (a `\r` at the end is then a line ending of its own).
#[inline]
pub(crate) fn find_line_end(bytes: &[u8], from: usize, at_end: bool) -> LineEnd {
    line_end_at(bytes, from, at_end, find_line_ending(&bytes[from..]))
}

/// What a search for a line's end passed over before the line ending (or before where it
/// stopped): whether those bytes hold a `"`, and a byte outside ASCII.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Passed {
    pub quote: bool,
    pub non_ascii: bool,
}

/// As [`find_line_end`], noting in `passed` what the search passed over (added to what
/// it already holds).
///
/// The cutter's search, in one pass over the bytes: it tells the CSV state machine
/// whether the line holds a quote and the workers whether the chunk is ASCII, where a
/// quote search per line and a UTF-8 check per chunk cost 1.4% of a two-thread run over
/// Kaggle's CSV, against 0.5% for the line ending search alone (`perf`, 2026-11-29).
#[inline]
pub(crate) fn find_line_end_noting(
    bytes: &[u8],
    from: usize,
    at_end: bool,
    passed: &mut Passed,
) -> LineEnd {
    let (offset, seen) = scan_line(&bytes[from..]);
    passed.quote |= seen.quote;
    passed.non_ascii |= seen.non_ascii;
    line_end_at(bytes, from, at_end, offset)
}

/// The line end when the first `\n` or `\r` from `from` on is `offset` bytes further.
#[inline]
fn line_end_at(bytes: &[u8], from: usize, at_end: bool, offset: Option<usize>) -> LineEnd {
    match offset {
        None => LineEnd::NotYet {
            searched: bytes.len(),
        },
        Some(offset) => {
            let content = from + offset;
            if bytes[content] == b'\n' {
                return LineEnd::Found {
                    content,
                    end: content + 1,
                };
            }
            match bytes.get(content + 1) {
                Some(b'\n') => LineEnd::Found {
                    content,
                    end: content + 2,
                },
                Some(_) => LineEnd::Found {
                    content,
                    end: content + 1,
                },
                None if at_end => LineEnd::Found {
                    content,
                    end: content + 1,
                },
                None => LineEnd::NotYet { searched: content },
            }
        }
    }
}

/// The first `\n` or `\r` of `bytes`, and what the bytes before it (all of them when
/// there is none) hold.
#[inline]
fn scan_line(bytes: &[u8]) -> (Option<usize>, Passed) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { scan_line_avx2(bytes) };
        }
    }
    scan_line_portable(bytes)
}

/// [`scan_line`] a byte at a time.
fn scan_line_portable(bytes: &[u8]) -> (Option<usize>, Passed) {
    let mut passed = Passed::default();
    for (at, &byte) in bytes.iter().enumerate() {
        match byte {
            b'\n' | b'\r' => return (Some(at), passed),
            b'"' => passed.quote = true,
            0x80.. => passed.non_ascii = true,
            _ => {}
        }
    }
    (None, passed)
}

/// [`scan_line`] 32 bytes at a time: a line ending, a quote and a high bit are three masks
/// of one load; the last bytes (fewer than 32) a byte at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_line_avx2(bytes: &[u8]) -> (Option<usize>, Passed) {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };
    let newline = _mm256_set1_epi8(b'\n' as i8);
    let carriage_return = _mm256_set1_epi8(b'\r' as i8);
    let quote = _mm256_set1_epi8(b'"' as i8);
    let (mut quotes, mut high) = (0u32, 0u32);
    let mut at = 0;
    while at + 32 <= bytes.len() {
        // SAFETY: the 32 bytes from `at` lie inside `bytes`; the load is unaligned.
        let block = unsafe { _mm256_loadu_si256(bytes.as_ptr().add(at).cast::<__m256i>()) };
        let endings = _mm256_or_si256(
            _mm256_cmpeq_epi8(block, newline),
            _mm256_cmpeq_epi8(block, carriage_return),
        );
        let endings = _mm256_movemask_epi8(endings) as u32;
        let block_quotes = _mm256_movemask_epi8(_mm256_cmpeq_epi8(block, quote)) as u32;
        let block_high = _mm256_movemask_epi8(block) as u32;
        if endings != 0 {
            let offset = endings.trailing_zeros();
            let before = (1u32 << offset) - 1;
            let passed = Passed {
                quote: (quotes | (block_quotes & before)) != 0,
                non_ascii: (high | (block_high & before)) != 0,
            };
            return (Some(at + offset as usize), passed);
        }
        quotes |= block_quotes;
        high |= block_high;
        at += 32;
    }
    let (ending, tail) = scan_line_portable(&bytes[at..]);
    let passed = Passed {
        quote: quotes != 0 || tail.quote,
        non_ascii: high != 0 || tail.non_ascii,
    };
    (ending.map(|offset| at + offset), passed)
}

/// The first `\n` or `\r` of `bytes`.
///
/// On x86-64 CPUs with AVX2, by a searcher built once: `memchr2` chooses its
/// implementation on every call, which on lines of about 80 bytes cost as much as the
/// search (together a few percent of an easy Sudoku corpus's run).
#[inline]
fn find_line_ending(bytes: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use memchr::arch::x86_64::avx2::memchr::Two;
        static SEARCHER: std::sync::OnceLock<Option<Two>> = std::sync::OnceLock::new();
        if let Some(searcher) = SEARCHER.get_or_init(|| Two::new(b'\n', b'\r')) {
            return searcher.find(bytes);
        }
    }
    memchr::memchr2(b'\n', b'\r', bytes)
}

/// Appends where each `,` of `text` is to `offsets`, by a searcher built once (as
/// [`find_line_ending`]).
pub(crate) fn push_commas(text: &[u8], offsets: &mut Vec<usize>) {
    #[cfg(target_arch = "x86_64")]
    {
        use memchr::arch::x86_64::avx2::memchr::One;
        static SEARCHER: std::sync::OnceLock<Option<One>> = std::sync::OnceLock::new();
        if let Some(searcher) = SEARCHER.get_or_init(|| One::new(b',')) {
            return offsets.extend(searcher.iter(text));
        }
    }
    offsets.extend(memchr::memchr_iter(b',', text));
}

/// The physical lines of `bytes` (whole lines: the bytes end with a line ending or at the
/// end of the input), each with its line ending if it has one.
pub(crate) fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = match find_line_end(rest, 0, true) {
            LineEnd::Found { end, .. } => end,
            LineEnd::NotYet { .. } => rest.len(),
        };
        let (line, tail) = rest.split_at(end);
        rest = tail;
        Some(line)
    })
}

/// Whether `line` (with its line ending) is blank or a `#` comment.
pub(crate) fn is_blank_or_comment(line: &[u8]) -> bool {
    let text = line.trim_ascii();
    text.is_empty() || text[0] == b'#'
}

impl Boundaries {
    /// The state at the start of an input (or of a chunk: chunks start between records).
    pub(crate) fn new(format: InputFormat) -> Self {
        Boundaries {
            format,
            csv: None,
            block_open: false,
        }
    }

    /// Takes the next physical line, including its `\n` if it has one; `has_quote`: whether
    /// it holds a `"` (which the search for its end noted).
    pub(crate) fn line(&mut self, line: &[u8], has_quote: bool) -> LineEffect {
        match self.format {
            InputFormat::Lines => {
                let skipped = is_blank_or_comment(line);
                LineEffect {
                    skipped,
                    ends_record: !skipped,
                    cut_allowed: true,
                    plain: false,
                }
            }
            InputFormat::Blocks => {
                let text = line.trim_ascii();
                if text.is_empty() {
                    let ends_record = std::mem::take(&mut self.block_open);
                    LineEffect {
                        skipped: true,
                        ends_record,
                        cut_allowed: true,
                        plain: false,
                    }
                } else if text[0] == b'#' {
                    // A comment inside a block neither ends it nor belongs to it.
                    LineEffect {
                        skipped: true,
                        ends_record: false,
                        cut_allowed: !self.block_open,
                        plain: false,
                    }
                } else {
                    self.block_open = true;
                    LineEffect {
                        skipped: false,
                        ends_record: false,
                        cut_allowed: false,
                        plain: false,
                    }
                }
            }
            InputFormat::Csv => {
                let state = match self.csv {
                    Some(state) => state,
                    None if is_blank_or_comment(line) => {
                        return LineEffect {
                            skipped: true,
                            ends_record: false,
                            cut_allowed: true,
                            plain: false,
                        }
                    }
                    None => CsvState::FieldStart,
                };
                // Fast path: a line without quotes that starts outside quotes ends its record.
                let quote_free = state != CsvState::Quoted && !has_quote;
                let plain = quote_free && self.csv.is_none();
                let state = if quote_free {
                    None
                } else {
                    csv_line_end(state, line)
                };
                self.csv = state;
                LineEffect {
                    skipped: false,
                    ends_record: state.is_none(),
                    cut_allowed: state.is_none(),
                    plain,
                }
            }
        }
    }

    /// Whether a record is open: it goes on on the next line.
    pub(crate) fn is_open(&self) -> bool {
        self.block_open || self.csv.is_some()
    }

    /// Ends the input: whether a record was still open (it ends there). Afterwards the
    /// state is as at the start.
    pub(crate) fn finish(&mut self) -> bool {
        let open = self.block_open || self.csv.is_some();
        *self = Boundaries::new(self.format);
        open
    }
}

/// The CSV parser state after `byte` in `state`, or `None` when the byte ends the record
/// (a line ending outside quotes).
#[inline]
fn csv_step(state: CsvState, byte: u8) -> Option<CsvState> {
    Some(match (state, byte) {
        (CsvState::Quoted, b'"') => CsvState::QuoteInQuoted,
        (CsvState::Quoted, _) => CsvState::Quoted,
        (CsvState::QuoteInQuoted, b'"') => CsvState::Quoted,
        (_, b'\n' | b'\r') => return None,
        (_, b',') => CsvState::FieldStart,
        (CsvState::FieldStart, b'"') => CsvState::Quoted,
        _ => CsvState::Unquoted,
    })
}

/// Runs a CSV line through the parser states: `None` when the record ends with the line (it
/// ends in a line ending outside quotes, or has none: the end of the input), else the
/// state the next line starts in (inside quotes).
fn csv_line_end(mut state: CsvState, line: &[u8]) -> Option<CsvState> {
    for &byte in line {
        state = csv_step(state, byte)?;
    }
    // A line without a line ending is the last of the input: only an open quote keeps its
    // record open.
    (state == CsvState::Quoted).then_some(state)
}

/// Where a quoted field that is still open at the end of `bytes` was opened: `bytes` are
/// the start of a CSV record, from the start of its first line. The place is the
/// 0-based line (counted from the record's first line), the offset of that line's start
/// and the offset of the quote, in `bytes`. `None` when no quoted field is open at the end.
pub(crate) fn csv_open_quote(bytes: &[u8]) -> Option<(u64, usize, usize)> {
    let mut state = CsvState::FieldStart;
    let (mut line, mut line_start) = (0u64, 0usize);
    let mut open = None;
    for (offset, &byte) in bytes.iter().enumerate() {
        state = match csv_step(state, byte) {
            Some(CsvState::Quoted) if state == CsvState::FieldStart => {
                open = Some((line, line_start, offset));
                CsvState::Quoted
            }
            Some(next) => next,
            // A record does not end inside its own bytes; should one, a new one starts.
            None => CsvState::FieldStart,
        };
        if !matches!(state, CsvState::Quoted | CsvState::QuoteInQuoted) {
            open = None;
        }
        let breaks = byte == b'\n' || (byte == b'\r' && bytes.get(offset + 1) != Some(&b'\n'));
        if breaks {
            line += 1;
            line_start = offset + 1;
        }
    }
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    fn effects(format: InputFormat, text: &str) -> Vec<(bool, bool, bool)> {
        let mut boundaries = Boundaries::new(format);
        text.split_inclusive('\n')
            .map(|line| {
                let e = boundaries.line(line.as_bytes(), line.contains('"'));
                (e.skipped, e.ends_record, e.cut_allowed)
            })
            .collect()
    }

    #[test]
    fn csv_newlines_inside_quotes_do_not_end_records() {
        let got = effects(
            InputFormat::Csv,
            "a,\"x\ny\",b\n# c\nab\"c,d\n\"q\"\"\n\"\"\n\"\n",
        );
        assert_eq!(
            got,
            vec![
                (false, false, false), // a,"x
                (false, true, true),   // y",b
                (true, false, true),   // # c
                (false, true, true),   // ab"c,d: a quote inside an unquoted field
                (false, false, false), // "q""
                (false, false, false), // "" (an escaped quote, still inside)
                (false, true, true),   // " closes
            ]
        );
    }

    #[test]
    fn the_line_scan_finds_the_first_ending_and_what_lies_before_it() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        let alphabet = [b'a', b'1', b',', b'"', b'\n', b'\r', 0x80, 0xC3, 0xFF, b' '];
        // Miri (with AVX2 enabled, to check the vector scan's loads) is slow.
        let rounds = if cfg!(miri) { 300 } else { 20_000 };
        for _ in 0..rounds {
            let len = rng.gen_range(0..200);
            // Mostly plain bytes, with each special byte rare enough that long runs occur.
            let bytes: Vec<u8> = (0..len)
                .map(|_| match rng.gen_range(0..60) {
                    k @ 0..=9 => alphabet[k],
                    _ => b'a' + rng.gen_range(0..26),
                })
                .collect();
            let ending = bytes.iter().position(|&b| b == b'\n' || b == b'\r');
            let before = &bytes[..ending.unwrap_or(bytes.len())];
            let expected = (
                ending,
                Passed {
                    quote: before.contains(&b'"'),
                    non_ascii: !before.is_ascii(),
                },
            );
            assert_eq!(scan_line(&bytes), expected, "{bytes:?}");
            assert_eq!(scan_line_portable(&bytes), expected, "{bytes:?}");
            for from in [0, len / 3, len] {
                let at_end = rng.gen_bool(0.5);
                let mut passed = Passed::default();
                assert_eq!(
                    find_line_end_noting(&bytes, from, at_end, &mut passed),
                    find_line_end(&bytes, from, at_end),
                    "{bytes:?} from {from}"
                );
            }
        }
    }

    #[test]
    fn csv_last_line_without_newline_ends_its_record() {
        let mut boundaries = Boundaries::new(InputFormat::Csv);
        assert!(boundaries.line(b"\"a\",b", true).ends_record);
        assert!(!boundaries.finish());
        assert!(!boundaries.line(b"\"a", true).ends_record);
        assert!(boundaries.finish());
        assert!(!boundaries.finish());
    }

    #[test]
    fn blocks_end_at_blank_lines_and_cannot_be_cut_inside() {
        let got = effects(InputFormat::Blocks, "# f\n10\n# c\n01\n\n\n11");
        assert_eq!(
            got,
            vec![
                (true, false, true),
                (false, false, false),
                (true, false, false),
                (false, false, false),
                (true, true, true),
                (true, false, true),
                (false, false, false),
            ]
        );
    }
}
