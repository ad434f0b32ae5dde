//! Building an opening book into a file, with the checkpoint that lets an interrupted build
//! resume: the builder owns the checkpoint from opening to removal. (The book's own file
//! format is [`super::Book::read`] and [`super::Book::write`].)

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::{build_book, Bits, BookError, BookSpec, BookStats, Checkpoint, SolvedPosition};
use crate::connect4::{board_fits, BoardSizeError};

/// Builds the book `spec` describes into `output`, keeping the positions solved so far in
/// `<output>.partial`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookBuilder {
    /// The book.
    pub spec: BookSpec,
    /// The book file.
    pub output: PathBuf,
    /// Transposition table per worker thread, MiB.
    pub table_mb: usize,
}

/// The settings of `connect4 book`, as the command line takes them.
#[derive(Debug, Clone, clap::Args)]
pub struct BookOptions {
    /// The board.
    #[command(flatten)]
    pub board: crate::connect4::BoardSettings,
    /// Positions with up to this many stones.
    #[arg(long)]
    pub depth: u32,
    /// Only win, draw or loss per position: a faster build, for `solve --weak` and `play`.
    #[arg(long)]
    pub weak: bool,
    /// The book file to write.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: PathBuf,
    /// Transposition table per worker thread, in MiB at most (each search starts at 1 MiB
    /// and doubles it as it grows).
    #[arg(long, default_value_t = crate::connect4::DEFAULT_TABLE_MB, value_name = "MB", value_parser = crate::connect4::parse_table_mb)]
    pub table_mb: usize,
}

impl BookOptions {
    /// The builder of the book these settings describe.
    pub fn builder(self) -> BookBuilder {
        BookBuilder {
            spec: BookSpec {
                width: self.board.width,
                height: self.board.height,
                depth: self.depth,
                weak: self.weak,
            },
            output: self.output,
            table_mb: self.table_mb,
        }
    }
}

/// What a build reports as it goes.
#[derive(Debug)]
pub enum BuildEvent<'a> {
    /// Positions were found in the checkpoint of an earlier build.
    Resuming {
        /// The checkpoint.
        checkpoint: &'a Path,
        /// Positions already solved.
        known: usize,
    },
    /// A position was solved: `to_solve` in all this run.
    Solved {
        /// Positions this run solves.
        to_solve: usize,
    },
    /// Something went wrong that does not stop the build.
    Warning(String),
}

/// Why a book cannot be built or written.
#[derive(Debug, Error)]
pub enum BookBuildError {
    /// The board is not supported.
    #[error(transparent)]
    Board(#[from] BoardSizeError),
    /// The depth reaches the number of cells.
    #[error("--depth must be below the number of cells ({0})")]
    Depth(usize),
    /// The output names a folder.
    #[error("cannot write the book to {}: it is a directory", .0.display())]
    OutputIsFolder(PathBuf),
    /// The output is a device, a pipe or a socket, not a file.
    #[error("cannot write the book to {}: it is not a regular file (the book and its checkpoint are files)", .0.display())]
    OutputNotFile(PathBuf),
    /// The output's folder does not exist.
    #[error("cannot write the book to {}: there is no folder {}", output.display(), folder.display())]
    NoFolder {
        /// The book file.
        output: PathBuf,
        /// Its folder.
        folder: PathBuf,
    },
    /// The checkpoint could not be opened.
    #[error(transparent)]
    Checkpoint(#[from] BookError),
    /// The book file could not be created.
    #[error("cannot create {}", path.display())]
    Create {
        /// The book file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The book file could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The book file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

impl BookBuilder {
    /// The checkpoint's path: the output's with `.partial` added.
    pub fn checkpoint_path(&self) -> PathBuf {
        let mut path = self.output.clone().into_os_string();
        path.push(".partial");
        PathBuf::from(path)
    }

    /// Checks the board, the depth and the output before a build that can take hours: the
    /// checkpoint is named after the output, so a build cannot be resumed under another
    /// name.
    pub fn check(&self) -> Result<(), BookBuildError> {
        let BookSpec { width, height, .. } = self.spec;
        board_fits(width, height)?;
        if self.spec.depth as usize >= width * height {
            return Err(BookBuildError::Depth(width * height));
        }
        if self.output.is_dir() {
            return Err(BookBuildError::OutputIsFolder(self.output.clone()));
        }
        // A device or pipe cannot take the book: its checkpoint would be a file beside it
        // (`/dev/full.partial`), and a build of hours would end in a write that fails.
        if std::fs::metadata(&self.output).is_ok_and(|meta| !meta.is_file()) {
            return Err(BookBuildError::OutputNotFile(self.output.clone()));
        }
        let folder = match self.output.parent() {
            Some(folder) if !folder.as_os_str().is_empty() => folder,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            return Err(BookBuildError::NoFolder {
                output: self.output.clone(),
                folder: folder.to_path_buf(),
            });
        }
        Ok(())
    }

    /// Builds the book on the current rayon pool, resuming from the checkpoint if there is
    /// one, writes it, and removes the checkpoint.
    pub fn build(
        &self,
        on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
    ) -> Result<BookStats, BookBuildError> {
        self.check()?;
        let stats = if board_fits(self.spec.width, self.spec.height)? {
            self.build_and_write::<u64>(on_event)?
        } else {
            self.build_and_write::<u128>(on_event)?
        };
        let checkpoint = self.checkpoint_path();
        if let Err(e) = std::fs::remove_file(&checkpoint) {
            on_event(BuildEvent::Warning(format!(
                "warning: the book is written, but its checkpoint {} could not be removed: {e}",
                checkpoint.display()
            )));
        }
        Ok(stats)
    }

    fn build_and_write<M: Bits>(
        &self,
        on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
    ) -> Result<BookStats, BookBuildError> {
        let (checkpoint, known) = Checkpoint::open::<M>(&self.checkpoint_path(), &self.spec)?;
        if !known.is_empty() {
            on_event(BuildEvent::Resuming {
                checkpoint: checkpoint.path(),
                known: known.len(),
            });
        }
        let record = |solved: SolvedPosition<M>| {
            if let Err(e) = checkpoint.record(solved.key, solved.score) {
                on_event(BuildEvent::Warning(format!(
                    "warning: {e}; the build goes on, but cannot be resumed"
                )));
            }
            on_event(BuildEvent::Solved {
                to_solve: solved.to_solve,
            });
        };
        let (book, stats) = build_book::<M>(&self.spec, self.table_mb, &known, &record);
        // The book first: a checkpoint that cannot be flushed must not cost the finished
        // work.
        let path = &self.output;
        let file = File::create(path).map_err(|source| BookBuildError::Create {
            path: path.clone(),
            source,
        })?;
        let mut out = BufWriter::new(file);
        book.write(&mut out)
            .and_then(|()| out.flush())
            .map_err(|source| BookBuildError::Write {
                path: path.clone(),
                source,
            })?;
        if let Err(e) = checkpoint.finish() {
            on_event(BuildEvent::Warning(format!("warning: {e}")));
        }
        Ok(stats)
    }
}
