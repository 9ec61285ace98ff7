//! The exported C functions, one file per object they act on.
