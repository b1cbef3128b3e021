//! The lab: where mutants are built and tested, always in scratch copies of
//! the user's tree. This is the start of it: the scratch trees.

pub mod scratch;
