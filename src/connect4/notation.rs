//! Move-list notations of Connect Four game logs.

use thiserror::Error;

use crate::batch::Excerpt;

/// How a game's moves are written (the colour names may be any two, in any case; the
/// first token's colour moves first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Notation {
    /// Colours if a token has an underscore, digits otherwise.
    Auto,
    /// Column numbers: `4453`, or `10,11,3` (separated by commas or spaces) for boards
    /// wider than 9.
    Digits,
    /// `F_Yellow, A_Red, …` (column letter, underscore, colour), optionally as a JSON list.
    Colors,
}

/// A game log read from its notation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GameLog {
    /// Columns played, 1-based, in order (possibly outside the board, 0 included: the
    /// replay says so).
    pub columns: Vec<usize>,
    /// For the colours notation: each move's colour (0 = the first colour, 1 = the second).
    pub colors: Option<Vec<u8>>,
    /// For the colours notation: the colour names as first written.
    pub color_names: Vec<String>,
}

/// Why a line cannot be read as a game.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum NotationError {
    /// The line has no moves.
    #[error("the line has no moves")]
    Empty,
    /// A character that is not a column number.
    #[error("character {character:?} at column {column} is not a column number")]
    BadDigit {
        /// The character.
        character: char,
        /// 1-based position in the line.
        column: usize,
    },
    /// A column number too large to be any board's column.
    #[error(
        "the number {} at column {column} is too large to be a column",
        Excerpt::plain(number)
    )]
    NumberTooLarge {
        /// The number as written.
        number: String,
        /// 1-based position in the line where it starts.
        column: usize,
    },
    /// A comma with no move before or after it (`1,,2`, `,1`, `1,2,`, `D_Red,,E_Yellow`).
    #[error("empty move at column {column}: a comma needs a move on each side")]
    EmptyMove {
        /// 1-based position in the line where the move is missing.
        column: usize,
    },
    /// A colours list that starts with `[` and does not end with `]`.
    #[error("the list is not closed: it starts with [ but does not end with ]")]
    UnclosedList,
    /// A colours list that ends with `]` and does not start with `[`.
    #[error("the list is not opened: it ends with ] but does not start with [")]
    UnopenedList,
    /// A token that is not `<column letter>_<colour>`.
    #[error(
        "token {index} ({}) is not a move like F_Yellow: {why}",
        Excerpt::quoted(token)
    )]
    BadToken {
        /// 1-based token number (its ply).
        index: usize,
        /// The token.
        token: String,
        /// What is wrong.
        why: String,
    },
}

impl GameLog {
    /// Reads one line.
    pub fn parse(line: &str, notation: Notation) -> Result<Self, NotationError> {
        let mut log = GameLog::default();
        log.parse_into(line, notation)?;
        Ok(log)
    }

    /// Reads one line into this log, reusing its buffers (a batch reads millions of games
    /// with one log per thread). On an error the log's content is unspecified.
    pub fn parse_into(&mut self, line: &str, notation: Notation) -> Result<(), NotationError> {
        let text = line.trim_ascii();
        if text.is_empty() {
            return Err(NotationError::Empty);
        }
        // One digit per byte, the usual 7×6 log: read without decoding characters and
        // without the colour and separator searches (5% of validating such an archive).
        let only_digits = text.bytes().all(|b| b.is_ascii_digit());
        let notation = match notation {
            // A list (`[…]`) is the colour notation's, even one that holds no moves.
            Notation::Auto if !only_digits && (text.contains('_') || text.starts_with('[')) => {
                Notation::Colors
            }
            Notation::Auto => Notation::Digits,
            other => other,
        };
        self.columns.clear();
        match notation {
            Notation::Colors => parse_colors(text, self),
            _ => {
                self.colors = None;
                self.color_names.clear();
                if only_digits {
                    let digits = text.bytes().map(|b| usize::from(b - b'0'));
                    self.columns.extend(digits);
                    Ok(())
                } else {
                    parse_digits(text, &mut self.columns)
                }
            }
        }
    }
}

/// Reads a digit log with separators or a bad character (one of digits alone is read
/// by [`GameLog::parse_into`]).
fn parse_digits(text: &str, columns: &mut Vec<usize>) -> Result<(), NotationError> {
    if text.contains([',', ' ', '\t']) {
        parse_separated(text, columns)?;
    } else {
        for (i, character) in text.chars().enumerate() {
            match character.to_digit(10) {
                Some(d) => columns.push(d as usize),
                None => {
                    return Err(NotationError::BadDigit {
                        character,
                        column: i + 1,
                    })
                }
            }
        }
    }
    if columns.is_empty() {
        return Err(NotationError::Empty);
    }
    Ok(())
}

/// Reads numbers separated by commas, spaces or tabs (`10,11, 3`). Spaces and tabs may
/// also pad a comma, and a comma may end a game of one move (`12,`: on a board wider
/// than 9 it would otherwise read as the moves 1 and 2); any other comma stands between
/// two numbers, and a missing one is an empty move.
fn parse_separated(text: &str, columns: &mut Vec<usize>) -> Result<(), NotationError> {
    // 1-based character columns where the current comma's part and word start.
    let mut part_start = 1;
    let parts: Vec<&str> = text.split(',').collect();
    for (index, part) in parts.iter().enumerate() {
        let before = columns.len();
        let mut word_start = part_start;
        for word in part.split([' ', '\t']) {
            if !word.is_empty() {
                columns.push(column_number(word, word_start)?);
            }
            word_start += word.chars().count() + 1;
        }
        let ends_a_one_move_game = index == 1 && parts.len() == 2 && columns.len() == 1;
        if columns.len() == before && !ends_a_one_move_game {
            return Err(NotationError::EmptyMove { column: part_start });
        }
        part_start += part.chars().count() + 1;
    }
    Ok(())
}

/// A game's moves (`tokens`, each a column number as written) in digits notation on a
/// board `width` columns wide: one character each up to 9 columns (`4453`), else
/// separated by commas (`10,11,3`), a game of one move then ending with its comma (`12,`)
/// so that it is not read as one move a digit.
pub fn digits_line(tokens: &[String], width: usize) -> String {
    if width <= 9 {
        return tokens.concat();
    }
    let mut line = tokens.join(",");
    if tokens.len() == 1 {
        line.push(',');
    }
    line
}

/// The column number `word` (not empty), which starts at character `column` of the line.
fn column_number(word: &str, column: usize) -> Result<usize, NotationError> {
    if let Some((i, character)) = word.chars().enumerate().find(|(_, c)| !c.is_ascii_digit()) {
        return Err(NotationError::BadDigit {
            character,
            column: column + i,
        });
    }
    word.parse().map_err(|_| NotationError::NumberTooLarge {
        number: word.to_string(),
        column,
    })
}

fn parse_colors(text: &str, log: &mut GameLog) -> Result<(), NotationError> {
    let (inner, first_column) = match (text.strip_prefix('['), text.strip_suffix(']')) {
        (Some(_), Some(_)) => (&text[1..text.len() - 1], 2),
        (Some(_), None) => return Err(NotationError::UnclosedList),
        (None, Some(_)) => return Err(NotationError::UnopenedList),
        (None, None) => (text, 1),
    };
    // The usual log is ASCII and well formed: read it a byte at a time (the general
    // reader's `char` searches and trims were 60% of validating such logs). Anything the
    // byte reader does not take, errors included, is read again by the general reader,
    // so that what is accepted and every message stay the general reader's.
    if inner.is_ascii() && parse_colors_ascii(inner, log) {
        return Ok(());
    }
    log.columns.clear();
    parse_colors_general(inner, first_column, log)
}

/// Whether `b` separates tokens.
fn is_token_separator(b: u8) -> bool {
    matches!(b, b',' | b' ' | b'\t')
}

/// `token` without leading and trailing bytes that match `strip`.
fn trim_bytes(token: &[u8], strip: impl Fn(u8) -> bool) -> &[u8] {
    let start = token.iter().position(|&b| !strip(b)).unwrap_or(token.len());
    let end = token
        .iter()
        .rposition(|&b| !strip(b))
        .map_or(start, |e| e + 1);
    &token[start..end]
}

/// Notes `color` as the log's next colour name, in `names[named]` (reusing its string),
/// and gives its index.
fn remember_color(names: &mut Vec<String>, named: &mut usize, color: &str) -> usize {
    match names.get_mut(*named) {
        Some(name) => {
            name.clear();
            name.push_str(color);
        }
        None => names.push(color.to_string()),
    }
    *named += 1;
    *named - 1
}

/// The colours notation of an ASCII log, byte by byte, as [`parse_colors_general`] reads
/// it; false (the log's content then unspecified) for anything it would not accept.
fn parse_colors_ascii(inner: &str, log: &mut GameLog) -> bool {
    let bytes = inner.as_bytes();
    let colors = log.colors.get_or_insert_with(Vec::new);
    colors.clear();
    let names = &mut log.color_names;
    let mut named = 0;
    // Whether a comma was met, and a move since the last one (or the start): an empty
    // move is left to the general reader's message.
    let (mut comma, mut moved) = (false, false);
    let mut i = 0;
    while i < bytes.len() {
        if is_token_separator(bytes[i]) {
            if bytes[i] == b',' {
                if !moved {
                    return false;
                }
                (comma, moved) = (true, false);
            }
            i += 1;
            continue;
        }
        if let Some((column, index, end)) = known_token(bytes, i, &names[..named]) {
            log.columns.push(column);
            colors.push(index);
            moved = true;
            i = end;
            continue;
        }
        let start = i;
        while i < bytes.len() && !is_token_separator(bytes[i]) {
            i += 1;
        }
        // ASCII whitespace as `str::trim` sees it (vertical tab included), then quotes.
        let token = trim_bytes(&bytes[start..i], |b| matches!(b, b'\t'..=b'\r' | b' '));
        let token = trim_bytes(token, |b| matches!(b, b'"' | b'\''));
        if token.is_empty() {
            continue;
        }
        let [letter, b'_', color @ ..] = token else {
            return false;
        };
        if !letter.is_ascii_alphabetic()
            || color.is_empty()
            || !color.iter().all(u8::is_ascii_alphabetic)
        {
            return false;
        }
        let index = match names[..named]
            .iter()
            .position(|n| n.as_bytes().eq_ignore_ascii_case(color))
        {
            Some(index) => index,
            None if named < 2 => {
                let color = std::str::from_utf8(color).expect("ASCII letters");
                remember_color(names, &mut named, color)
            }
            None => return false,
        };
        log.columns
            .push(usize::from(letter.to_ascii_uppercase() - b'A') + 1);
        colors.push(index as u8);
        moved = true;
    }
    names.truncate(named);
    !log.columns.is_empty() && (moved || !comma)
}

/// The move at `bytes[i..]` when it is exactly `letter_Name`, with Name one of the
/// colours already `named` and a separator or the end right after it: its column, its
/// colour's index and where it ends. Most moves of a log are such tokens; matching the
/// known names in place skips the token scan and trims (colour logs 1.26–1.38× faster
/// end to end when measured).
#[inline]
fn known_token(bytes: &[u8], i: usize, named: &[String]) -> Option<(usize, u8, usize)> {
    let (&letter, rest) = bytes[i..].split_first()?;
    let (&b'_', rest) = rest.split_first()? else {
        return None;
    };
    if !letter.is_ascii_alphabetic() {
        return None;
    }
    named.iter().enumerate().find_map(|(index, name)| {
        let name = name.as_bytes();
        let after = rest.get(name.len()).copied();
        let ends = after.is_none_or(is_token_separator);
        (ends && rest.len() >= name.len() && rest[..name.len()].eq_ignore_ascii_case(name)).then(
            || {
                let column = usize::from(letter.to_ascii_uppercase() - b'A') + 1;
                (column, index as u8, i + 2 + name.len())
            },
        )
    })
}

/// The colours notation read `char` by `char`: any text, and the errors' messages.
fn parse_colors_general(
    inner: &str,
    first_column: usize,
    log: &mut GameLog,
) -> Result<(), NotationError> {
    let columns = &mut log.columns;
    let mut colors = log.colors.take().unwrap_or_default();
    colors.clear();
    // The names' buffers are kept: the first `named` are this game's.
    let names = &mut log.color_names;
    let mut named = 0;
    // Every comma stands between two moves, as in the digits notation: `first_column` is
    // the 1-based character column of `inner`'s first character in the line.
    let mut part_start = first_column;
    let has_comma = inner.contains(',');
    let mut i = 0;
    for part in inner.split(',') {
        let tokens = part
            .split([' ', '\t'])
            .map(|t| t.trim().trim_matches(['"', '\'']))
            .filter(|t| !t.is_empty());
        let before = i;
        for token in tokens {
            parse_color_token(token, i, columns, &mut colors, names, &mut named)?;
            i += 1;
        }
        // Without a comma the one part is the whole line: no move there is the empty game.
        if i == before && has_comma {
            return Err(NotationError::EmptyMove { column: part_start });
        }
        part_start += part.chars().count() + 1;
    }
    names.truncate(named);
    log.colors = Some(colors);
    if log.columns.is_empty() {
        return Err(NotationError::Empty);
    }
    Ok(())
}

/// Reads the move `token` (the `i`-th, from 0) of the colours notation into `columns` and
/// `colors`, noting a new colour name in `names` (the first `named` are the game's).
fn parse_color_token(
    token: &str,
    i: usize,
    columns: &mut Vec<usize>,
    colors: &mut Vec<u8>,
    names: &mut Vec<String>,
    named: &mut usize,
) -> Result<(), NotationError> {
    let bad = |why: &str| NotationError::BadToken {
        index: i + 1,
        token: token.to_string(),
        why: why.to_string(),
    };
    let (letter, color) = token.split_once('_').ok_or_else(|| bad("no underscore"))?;
    let mut letters = letter.chars();
    let column = match (letters.next(), letters.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => {
            (c.to_ascii_uppercase() as u8 - b'A') as usize + 1
        }
        _ => return Err(bad("the column is one letter, A for the first")),
    };
    if color.is_empty() || !color.chars().all(char::is_alphabetic) {
        return Err(bad("the colour is a name such as Red or Yellow"));
    }
    let index = match names[..*named]
        .iter()
        .position(|n| n.eq_ignore_ascii_case(color))
    {
        Some(index) => index,
        None if *named < 2 => remember_color(names, named, color),
        None => {
            return Err(bad(&format!(
                "a third colour; the game's colours are {} and {}",
                Excerpt::plain(&names[0]),
                Excerpt::plain(&names[1])
            )))
        }
    };
    columns.push(column);
    colors.push(index as u8);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_one_per_character_or_separated() {
        let log = GameLog::parse("4453", Notation::Auto).unwrap();
        assert_eq!(log.columns, vec![4, 4, 5, 3]);
        assert!(log.colors.is_none());
        let wide = GameLog::parse("10,11, 3", Notation::Digits).unwrap();
        assert_eq!(wide.columns, vec![10, 11, 3]);
        // One move on a wide board is written with a comma after it, and read back.
        let one = digits_line(&["12".to_string()], 16);
        assert_eq!(one, "12,");
        assert_eq!(GameLog::parse(&one, Notation::Auto).unwrap().columns, [12]);
        assert_eq!(digits_line(&["12".to_string()], 7), "12");
        assert_eq!(
            GameLog::parse("4,5,", Notation::Auto),
            Err(NotationError::EmptyMove { column: 5 })
        );
        assert_eq!(
            GameLog::parse(",", Notation::Auto),
            Err(NotationError::EmptyMove { column: 1 })
        );
        assert_eq!(
            GameLog::parse("4,,5", Notation::Auto),
            Err(NotationError::EmptyMove { column: 3 })
        );
        assert_eq!(
            GameLog::parse("44x3", Notation::Auto),
            Err(NotationError::BadDigit {
                character: 'x',
                column: 3
            })
        );
        // Column 0 is read; the replay finds it outside the board.
        assert_eq!(
            GameLog::parse("4403", Notation::Auto).unwrap().columns,
            vec![4, 4, 0, 3]
        );
        assert_eq!(
            GameLog::parse("10,1a", Notation::Auto),
            Err(NotationError::BadDigit {
                character: 'a',
                column: 5
            })
        );
        assert_eq!(
            GameLog::parse("  ", Notation::Auto),
            Err(NotationError::Empty)
        );
    }

    #[test]
    fn an_overlong_number_is_too_large_where_it_starts() {
        let error = GameLog::parse("10,11,99999999999999999999", Notation::Auto).unwrap_err();
        assert_eq!(
            error,
            NotationError::NumberTooLarge {
                number: "99999999999999999999".into(),
                column: 7
            }
        );
        assert_eq!(
            error.to_string(),
            "the number 99999999999999999999 at column 7 is too large to be a column"
        );
        // A bad character in a long number is still that character.
        assert_eq!(
            GameLog::parse("1 99999999999999999999x", Notation::Digits),
            Err(NotationError::BadDigit {
                character: 'x',
                column: 23
            })
        );
    }

    #[test]
    fn every_comma_stands_between_two_colour_moves() {
        let empty = |column| Err(NotationError::EmptyMove { column });
        let colors = |line| GameLog::parse(line, Notation::Colors);
        assert_eq!(colors("D_Red,,E_Yellow"), empty(7));
        assert_eq!(colors("D_Red, ,E_Yellow"), empty(7));
        assert_eq!(colors("D_Red, '', E_Yellow"), empty(7));
        assert_eq!(colors(",D_Red"), empty(1));
        assert_eq!(colors("D_Red,E_Yellow,"), empty(16));
        assert_eq!(colors("[D_Red,,E_Yellow]"), empty(8));
        assert_eq!(colors("[D_Réd,,E_Yellow]"), empty(8));
        assert_eq!(colors(","), empty(1));
        assert_eq!(colors("[]"), Err(NotationError::Empty));
        // Spaces alone separate moves, and may pad a comma.
        for line in [
            "D_Red E_Yellow",
            "D_Red ,\tE_Yellow",
            "[ D_Red , E_Yellow ]",
        ] {
            assert_eq!(colors(line).unwrap().columns, vec![4, 5], "{line:?}");
        }
    }

    #[test]
    fn every_comma_stands_between_two_numbers() {
        let empty = |column| Err(NotationError::EmptyMove { column });
        assert_eq!(GameLog::parse("1,,2", Notation::Auto), empty(3));
        assert_eq!(GameLog::parse(",1", Notation::Auto), empty(1));
        assert_eq!(GameLog::parse("1,2,", Notation::Auto), empty(5));
        assert_eq!(GameLog::parse("10, ,11", Notation::Auto), empty(4));
        // A comma may end a game of one move only: one number, however long (the replay
        // then finds a column outside the board).
        assert_eq!(
            GameLog::parse("4455667,", Notation::Auto).unwrap().columns,
            [4455667]
        );
        assert_eq!(
            GameLog::parse("1,2,", Notation::Auto)
                .unwrap_err()
                .to_string(),
            "empty move at column 5: a comma needs a move on each side"
        );
        // Spaces and tabs separate numbers and pad commas.
        for line in ["10 , 11,\t3", "10  11 3", "10,11,3"] {
            assert_eq!(
                GameLog::parse(line, Notation::Auto).unwrap().columns,
                vec![10, 11, 3],
                "{line:?}"
            );
        }
    }

    #[test]
    fn a_list_of_colours_is_closed() {
        // An empty list is a game without moves, not a bad digit.
        assert_eq!(
            GameLog::parse("[]", Notation::Auto),
            Err(NotationError::Empty)
        );
        assert_eq!(
            GameLog::parse(r#"["D_Red", "E_Yellow""#, Notation::Auto),
            Err(NotationError::UnclosedList)
        );
        assert_eq!(
            GameLog::parse(r#""D_Red", "E_Yellow"]"#, Notation::Auto)
                .unwrap_err()
                .to_string(),
            "the list is not opened: it ends with ] but does not start with ["
        );
        assert_eq!(
            GameLog::parse(r#"["D_Red", "E_Yellow"]"#, Notation::Auto)
                .unwrap()
                .columns,
            vec![4, 5]
        );
    }

    /// The byte reader takes what the general reader takes, with the same moves, and
    /// declines the rest: logs built from pieces that each side treats differently.
    #[test]
    fn byte_reader_agrees_with_the_general_reader() {
        let pieces = [
            "D_Yellow",
            "a_red",
            "G_RED",
            "c_Yellow",
            "'B_Red'",
            "\"E_Yellow\"",
            ",",
            ", ",
            " ",
            "\t",
            "\x0b",
            "\r",
            "\n",
            "\"",
            "'",
            "_Red",
            "DD_Red",
            "D-Red",
            "D_",
            "D_Blue",
            "D_Re d",
            "1_Red",
            "D_R3d",
            "E_Reddish",
            "F_Yello",
            "A_Red'",
            "B_Red\"x",
            "",
        ];
        // A small generator, so the cases are the same on every run.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut taken = 0;
        for case in 0..20_000 {
            let mut line = String::new();
            for k in 0..1 + next(8) {
                // Mostly well-formed moves between separators, so that most lines are
                // taken; now and then a separator (a comma: an empty move) at either end.
                if k > 0 || next(8) == 0 {
                    line.push_str(if next(4) > 0 {
                        ", "
                    } else {
                        pieces[4 + next(9)]
                    });
                }
                let piece = if next(3) > 0 {
                    pieces[next(4)]
                } else {
                    pieces[next(pieces.len())]
                };
                line.push_str(piece);
            }
            if next(8) == 0 {
                line.push_str(pieces[4 + next(9)]);
            }
            let mut general = GameLog::default();
            let expected = parse_colors_general(&line, 1, &mut general);
            let mut bytes = GameLog::default();
            if parse_colors_ascii(&line, &mut bytes) {
                taken += 1;
                assert_eq!(expected, Ok(()), "case {case}: {line:?}");
                assert_eq!(bytes, general, "case {case}: {line:?}");
            }
            // Through the front door, after a previous game in the same log.
            let mut reused = GameLog::parse("A_Green, B_Blue", Notation::Colors).unwrap();
            reused.columns.clear();
            let through = parse_colors(&line, &mut reused);
            assert_eq!(through, expected, "case {case}: {line:?}");
            if through.is_ok() {
                assert_eq!(reused, general, "case {case}: {line:?}");
            }
        }
        assert!(taken > 4_000, "the byte reader took only {taken} logs");
    }

    #[test]
    fn colors_in_any_case_and_as_a_list() {
        let log = GameLog::parse("F_Yellow, G_Red, d_yellow", Notation::Auto).unwrap();
        assert_eq!(log.columns, vec![6, 7, 4]);
        assert_eq!(log.colors, Some(vec![0, 1, 0]));
        assert_eq!(log.color_names, vec!["Yellow", "Red"]);
        let list = GameLog::parse(r#"["F_Yellow", 'G_RED', "D_Yellow"]"#, Notation::Auto).unwrap();
        assert_eq!(list.colors, Some(vec![0, 1, 0]));
        let error = GameLog::parse("F_Yellow, G_Red, D_Blue", Notation::Auto).unwrap_err();
        assert_eq!(
            error.to_string(),
            "token 3 (\"D_Blue\") is not a move like F_Yellow: a third colour; the game's colours are Yellow and Red"
        );
        assert!(GameLog::parse("F_Yellow, GG_Red", Notation::Auto).is_err());
        assert!(GameLog::parse("F_Yellow, G-Red", Notation::Colors).is_err());
    }
}
