//! fairyzero-trainer: filled in by a later issue (see the issue tracker).
