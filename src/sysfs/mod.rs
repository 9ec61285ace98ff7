//! Device discovery in sysfs.
