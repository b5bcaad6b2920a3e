//! Data-parallel building blocks that several areas share (the light CDF, the wavefront
//! queues, the light BVH): each a GPU kernel with a small CPU twin in the tests.

pub mod counting_sort;
pub mod radix_sort;
pub mod scan;

pub use counting_sort::{CountingSort, SortArrays, SortLaunch};
pub use radix_sort::{FirstDigitCounts, RadixArrays, RadixSort, SortedPairs};
pub use scan::{PrefixSum, ScanElement};
