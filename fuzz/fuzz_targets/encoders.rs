#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ibverbs::fuzzing::encoders(data));
