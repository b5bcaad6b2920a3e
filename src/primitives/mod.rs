//! Data-parallel building blocks that several areas share (the light CDF, the wavefront
//! queues): each a GPU kernel with a small CPU twin in the tests.

pub mod counting_sort;
pub mod scan;

pub use counting_sort::{CountingSort, SortArrays, SortLaunch};
pub use scan::{PrefixSum, ScanElement};
