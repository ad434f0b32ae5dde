//! Cells of a result row as formatters see them: borrowed from the record's outcome, so
//! that a row is formatted without copying or allocating.

use super::Value;

/// One cell of a result row, borrowed for formatting (see [`RowFormatter`](super::RowFormatter)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    /// No value (an empty CSV cell, `null` in JSON Lines).
    Empty,
    /// A text value.
    Text(&'a str),
    /// A whole number.
    Int(u64),
    /// A whole number that may be negative.
    Signed(i64),
    /// A measurement, written with one decimal.
    Float(f64),
    /// A duration in nanoseconds, written in microseconds with one decimal: exactly as
    /// [`Float`](Cell::Float) of `nanos / 1000` would be, without the float formatting.
    Micros(u64),
}

impl Value {
    /// The value as a cell for a [`RowFormatter`](super::RowFormatter).
    pub fn cell(&self) -> Cell<'_> {
        match self {
            Value::Empty => Cell::Empty,
            Value::Text(text) => Cell::Text(text),
            Value::Int(n) => Cell::Int(*n),
            Value::Signed(n) => Cell::Signed(*n),
            Value::Float(x) => Cell::Float(*x),
        }
    }
}

impl From<Cell<'_>> for Value {
    fn from(cell: Cell<'_>) -> Value {
        match cell {
            Cell::Empty => Value::Empty,
            Cell::Text(text) => Value::Text(text.to_string()),
            Cell::Int(n) => Value::Int(n),
            Cell::Signed(n) => Value::Signed(n),
            Cell::Float(x) => Value::Float(x),
            Cell::Micros(nanos) => Value::Float(nanos as f64 / 1000.0),
        }
    }
}

/// Appends `bytes`, as `extend_from_slice` does, but with no call to `memcpy` for 16 bytes
/// or fewer: a row's cells are a few bytes each, and the calls (a variable length is
/// never copied inline) took 7% of a run validating Connect Four games.
#[inline]
pub fn push_short(bytes: &[u8], out: &mut Vec<u8>) {
    let n = bytes.len();
    if n > 16 {
        return out.extend_from_slice(bytes);
    }
    out.reserve(16);
    let len = out.len();
    let (from, to) = (bytes.as_ptr(), out.as_mut_ptr());
    // SAFETY: `reserve` made room for 16 bytes after `len`, and `n` is at most 16. Each
    // copy reads within `bytes` (the pairs overlap for lengths between their sizes) and
    // writes within that room; together they write bytes `len` to `len + n - 1`, which
    // are then initialised.
    unsafe {
        let to = to.add(len);
        if n >= 8 {
            std::ptr::copy_nonoverlapping(from, to, 8);
            std::ptr::copy_nonoverlapping(from.add(n - 8), to.add(n - 8), 8);
        } else if n >= 4 {
            std::ptr::copy_nonoverlapping(from, to, 4);
            std::ptr::copy_nonoverlapping(from.add(n - 4), to.add(n - 4), 4);
        } else if n > 0 {
            *to = *from;
            *to.add(n / 2) = *from.add(n / 2);
            *to.add(n - 1) = *from.add(n - 1);
        }
        out.set_len(len + n);
    }
}

/// Appends `n` in decimal.
#[inline]
pub fn push_number(n: u64, out: &mut Vec<u8>) {
    // Most of a row's numbers are one digit (guesses, a fast record's whole microseconds).
    if n < 10 {
        return out.push(b'0' + n as u8);
    }
    push_short(itoa::Buffer::new().format(n).as_bytes(), out);
}

/// Writes a chunk's line numbers, which mostly count up by one: the next one is the
/// last one's digits incremented in place, where formatting each anew was a tenth of the
/// runner's own work per easy record.
#[derive(Debug, Default)]
pub(crate) struct LineNumbers {
    /// The last number written (0 before the first).
    last: u64,
    /// Its digits, right-aligned.
    digits: [u8; 20],
    /// How many of them.
    len: usize,
}

impl LineNumbers {
    /// Appends `line` in decimal.
    #[inline]
    pub(crate) fn push(&mut self, line: u64, out: &mut Vec<u8>) {
        if line != self.last.wrapping_add(1) || self.last == 0 || !self.increment() {
            let mut buffer = itoa::Buffer::new();
            let text = buffer.format(line).as_bytes();
            self.len = text.len();
            self.digits[20 - self.len..].copy_from_slice(text);
        }
        self.last = line;
        push_short(&self.digits[20 - self.len..], out);
    }

    /// Adds one to the digits, if the carry stays within the last eight and the number
    /// keeps its length (else the caller formats it anew).
    ///
    /// The last eight digits are read and written as one word. Incremented byte by byte,
    /// the copy into the row that follows read a word over a byte just stored, a stalled
    /// store forwarding that was most of this function's time.
    #[inline]
    fn increment(&mut self) -> bool {
        const ASCII_NINES: u64 = u64::from_le_bytes([b'9'; 8]);
        const NINES: u64 = u64::from_le_bytes([9; 8]);
        let mut word = [0; 8];
        word.copy_from_slice(&self.digits[12..20]);
        let word = u64::from_le_bytes(word);
        // The last digit is the word's top byte: the `9`s it ends with are its top bytes
        // equal to `9`.
        let nines = ((word ^ ASCII_NINES).leading_zeros() / 8) as usize;
        if nines >= self.len.min(8) {
            return false;
        }
        // The `9`s become `0`s and the digit before them goes up by one, with no carry
        // between bytes.
        let digit = 7 - nines;
        let to_zeros = NINES.checked_shl(8 * (8 - nines as u32)).unwrap_or(0);
        let word = word - to_zeros + (1 << (8 * digit));
        self.digits[12..20].copy_from_slice(&word.to_le_bytes());
        true
    }
}

/// Appends `text` as one CSV field, as the `csv` crate writes it with its default
/// settings: quoted (its quotes doubled) only if it holds a delimiter, a quote or a line
/// ending.
pub fn push_csv_field(text: &str, out: &mut Vec<u8>) {
    let bytes = text.as_bytes();
    // A fold with no early exit compiles to vector compares; `any` tested byte by
    // byte, a tenth of a Sudoku row's formatting-and-solving glue.
    let special = bytes.iter().fold(false, |found, &b| {
        found | matches!(b, b',' | b'"' | b'\n' | b'\r')
    });
    if !special {
        return push_short(bytes, out);
    }
    out.push(b'"');
    for part in bytes.split_inclusive(|&b| b == b'"') {
        out.extend_from_slice(part);
        if part.ends_with(b"\"") {
            out.push(b'"');
        }
    }
    out.push(b'"');
}

/// Appends `x` with one decimal, as `format!("{x:.1}")` writes it.
pub fn push_one_decimal(x: f64, out: &mut Vec<u8>) {
    use std::io::Write as _;
    // Writing to a Vec cannot fail.
    let _ = write!(out, "{x:.1}");
}

/// Appends `nanos` in microseconds with one decimal, byte for byte as
/// [`push_one_decimal`] of `nanos as f64 / 1000.0`: per record, float formatting cost as
/// much as the rest of the row.
pub fn push_micros(nanos: u64, out: &mut Vec<u8>) {
    let (tenths, rest) = (nanos / 100, nanos % 100);
    // Away from a tie the float rounds the same way as the exact quotient, as long as the
    // float's error stays below the 1 ns distance to the tie (a huge value takes the
    // float's own path).
    if nanos >= 1 << 50 {
        return push_one_decimal(nanos as f64 / 1000.0, out);
    }
    let up = if rest == 50 {
        // A tie rounds as the float lies: above the tie up, below it down, on it (a
        // quarter or three quarters of a microsecond) to the even tenth. The float's error
        // `x * 1000 - nanos` is a small multiple of its last bit, so the fused
        // multiply-add gives it exactly. (Formatting the float cost about 1% of an easy
        // Sudoku run, where ticks converted to nanoseconds fall on a tie one time in 100.)
        let x = nanos as f64 / 1000.0;
        let error = x.mul_add(1000.0, -(nanos as f64));
        error > 0.0 || (error == 0.0 && tenths % 2 == 1)
    } else {
        rest > 50
    };
    let tenths = tenths + u64::from(up);
    if tenths < 100 {
        // Under 10 µs, most records: three bytes in one copy.
        let text = [b'0' + (tenths / 10) as u8, b'.', b'0' + (tenths % 10) as u8];
        return push_short(&text, out);
    }
    push_number(tenths / 10, out);
    out.push(b'.');
    out.push(b'0' + (tenths % 10) as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers_are_written_as_push_number_writes_them() {
        let mut numbers = LineNumbers::default();
        let (mut out, mut expected) = (Vec::new(), Vec::new());
        // Runs of consecutive lines across every carry, with gaps and a step back between.
        let starts = [
            1,
            7,
            95,
            990,
            99_990,
            9_999_990,
            99_999_990,
            123_456_789_999_990,
            42,
            u64::MAX / 10 - 3,
            3,
        ];
        for (run, &start) in starts.iter().enumerate() {
            for line in start..start + 25 {
                numbers.push(line, &mut out);
                push_number(line, &mut expected);
                out.push(b',');
                expected.push(b',');
            }
            // A gap inside the run.
            numbers.push(start + 100 + run as u64, &mut out);
            push_number(start + 100 + run as u64, &mut expected);
        }
        numbers.push(u64::MAX, &mut out);
        push_number(u64::MAX, &mut expected);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            String::from_utf8(expected).unwrap()
        );
    }

    #[test]
    fn short_pushes_append_what_extend_appends() {
        let text: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
        for start in [0, 1, 3] {
            for len in 0..=24 {
                let mut out = b"row:".to_vec();
                out.shrink_to_fit();
                push_short(&text[start..start + len], &mut out);
                let mut expected = b"row:".to_vec();
                expected.extend_from_slice(&text[start..start + len]);
                assert_eq!(out, expected, "{len} bytes from {start}");
            }
        }
        for n in [0, 7, 10, 99_999, u64::MAX] {
            let mut out = Vec::new();
            push_number(n, &mut out);
            assert_eq!(out, n.to_string().as_bytes());
        }
    }

    #[test]
    fn micros_are_written_as_the_float_would_be() {
        let reference = |nanos: u64| format!("{:.1}", nanos as f64 / 1000.0);
        let mut samples: Vec<u64> = (0..200_000).collect();
        samples.extend((0..2000u64).map(|i| i * 1_000_003 + 49));
        samples.extend((0..2000u64).map(|i| i * 99_999_937 + 50));
        // Ties of every kind: above, below and on the float.
        samples.extend((0..1_000_000u64).map(|i| i * 100 + 50));
        samples.extend((0..100_000u64).map(|i| i * 9_999_999_937 % (1 << 50) / 100 * 100 + 50));
        samples.extend([u64::MAX, 1 << 50, (1 << 50) - 1, 123_456_789_050, 999_950]);
        for nanos in samples {
            let mut out = Vec::new();
            push_micros(nanos, &mut out);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                reference(nanos),
                "{nanos} ns"
            );
        }
    }
}
