//! The kernels against plain loops over the same values (the definition of their result).

use super::*;

fn values(n: usize) -> Vec<i64> {
    (0..n as i64)
        .map(|i| match i % 5 {
            0 => i64::MIN + i,
            1 => i64::MAX - i,
            2 => -i,
            3 => 0,
            _ => i.wrapping_mul(0x5851_f42d_4c95_7f2d),
        })
        .collect()
}

#[test]
fn selected_values_are_copied_and_widened_in_order() {
    for n in [0usize, 1, 15, 16, 17, 63, 64, 65, 1000] {
        let v = values(n);
        let narrow: Vec<u32> = v.iter().map(|&x| x as u32).collect();
        let wide: Vec<u64> = v.iter().map(|&x| x as u64).collect();
        for step in [1usize, 2, 3, 7, 64, 1000] {
            let keep = BooleanBuffer::collect_bool(n, |i| i % step == 0);
            let at: Vec<usize> = (0..n).filter(|i| i % step == 0).collect();
            let (Some(a), Some(b), Some(c)) =
                (compressed(&narrow, &keep), compressed(&wide, &keep), widened(&v, &keep))
            else {
                assert!(!has_avx512());
                continue;
            };
            assert_eq!(a, at.iter().map(|&i| narrow[i]).collect::<Vec<_>>());
            assert_eq!(b, at.iter().map(|&i| wide[i]).collect::<Vec<_>>());
            assert_eq!(c, at.iter().map(|&i| i128::from(v[i])).collect::<Vec<_>>());
        }
        // A bitmap of another length is refused, not read past.
        assert_eq!(compressed(&wide, &BooleanBuffer::new_set(n + 1)), None);
        assert_eq!(widened(&v, &BooleanBuffer::new_set(n + 1)), None);
    }
}
