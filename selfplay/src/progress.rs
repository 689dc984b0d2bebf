//! The progress bar of long runs (indicatif), drawn on stderr and hidden when stderr is not a
//! terminal, so that logs and piped output stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar counting `total` games, or a hidden one when `show` is false.
pub fn bar(total: u64, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games (eta {eta}) {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar
}
