//! Conversions between enum ibv_rate and link multipliers / Mb/s.

/// (enum ibv_rate value, multiple of 2.5 Gb/s, Mb/s). IBV_RATE_MAX is 0.
const RATES: &[(i32, i32, i32)] = &[
    (2, 1, 2500),
    (5, 2, 5000),
    (3, 4, 10000),
    (6, 8, 20000),
    (4, 12, 30000),
    (7, 16, 40000),
    (8, 24, 60000),
    (9, 32, 80000),
    (10, 48, 120000),
    (11, 0, 14062),
    (12, 0, 56250),
    (13, 0, 112500),
    (14, 0, 168750),
    (15, 0, 25781),
    (16, 0, 103125),
    (17, 0, 206250),
    (18, 0, 309375),
    (19, 11, 28125),
    (20, 20, 53125),
    (21, 160, 425000),
    (22, 240, 637500),
    (23, 320, 850000),
    (24, 480, 1275000),
];

const RATE_MAX: i32 = 0;

pub(crate) fn rate_to_mult(rate: i32) -> i32 {
    RATES
        .iter()
        .find(|r| r.0 == rate && r.1 != 0)
        .map_or(-1, |r| r.1)
}

pub(crate) fn mult_to_rate(mult: i32) -> i32 {
    RATES
        .iter()
        .find(|r| r.1 == mult && mult != 0)
        .map_or(RATE_MAX, |r| r.0)
}

pub(crate) fn rate_to_mbps(rate: i32) -> i32 {
    RATES
        .iter()
        .find(|r| r.0 == rate && r.2 != 0)
        .map_or(-1, |r| r.2)
}

pub(crate) fn mbps_to_rate(mbps: i32) -> i32 {
    RATES
        .iter()
        .find(|r| r.2 == mbps && mbps != 0)
        .map_or(RATE_MAX, |r| r.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for &(rate, mult, mbps) in RATES {
            assert_eq!(rate_to_mbps(rate), mbps);
            assert_eq!(mbps_to_rate(mbps), rate);
            if mult != 0 {
                assert_eq!(rate_to_mult(rate), mult);
                assert_eq!(mult_to_rate(mult), rate);
            } else {
                assert_eq!(rate_to_mult(rate), -1);
            }
        }
        assert_eq!(rate_to_mult(RATE_MAX), -1);
        assert_eq!(mult_to_rate(0), RATE_MAX);
        assert_eq!(mbps_to_rate(-5), RATE_MAX);
    }
}
