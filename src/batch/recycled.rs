//! Buffers of outcomes already written, kept by a job's worker for the next records.

use super::{Outcome, Value};

/// The buffers of outcomes handed back through [`Job::recycle`](super::Job::recycle): a
/// values vector and texts, emptied, for the next records to fill instead of allocating
/// their own.
#[derive(Debug, Default)]
pub struct Recycled {
    values: Vec<Value>,
    texts: Vec<String>,
}

impl Recycled {
    /// Texts kept, at most: a few rows' worth.
    const KEPT: usize = 16;

    /// Keeps the buffers of `outcome`.
    pub fn keep(&mut self, outcome: Outcome) {
        let Outcome {
            mut values, error, ..
        } = outcome;
        let texts = values.drain(..).filter_map(|value| match value {
            Value::Text(text) => Some(text),
            _ => None,
        });
        for text in std::iter::once(error).chain(texts) {
            if text.capacity() > 0 && self.texts.len() < Self::KEPT {
                self.texts.push(text);
            }
        }
        if values.capacity() > self.values.capacity() {
            self.values = values;
        }
    }

    /// An empty values vector, with room if one was kept.
    pub fn values(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.values)
    }

    /// An empty string, with room if one was kept.
    pub fn string(&mut self) -> String {
        let mut text = self.texts.pop().unwrap_or_default();
        text.clear();
        text
    }

    /// A string holding `content`, in a kept buffer if there is one.
    pub fn text(&mut self, content: &str) -> String {
        let mut text = self.string();
        text.push_str(content);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_buffers_come_back_empty() {
        let mut recycled = Recycled::default();
        recycled.keep(Outcome {
            status: "ok",
            failed: false,
            error: String::new(),
            values: vec![Value::Int(1), Value::Text("abc".repeat(30))],
        });
        let values = recycled.values();
        assert!(values.is_empty() && values.capacity() >= 2);
        let text = recycled.text("x");
        assert_eq!(text, "x");
        assert!(text.capacity() >= 90);
        assert_eq!(recycled.string(), "");
    }
}
