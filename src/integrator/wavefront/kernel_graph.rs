//! The wavefront's kernel graph, declared once: which kernel takes paths from which queue and
//! to which queues it may hand them. Both schedulers are derived from it (the GPU-driven
//! sequence is the order in which paths flow from `generate`; the Cycles-style scheduler
//! chooses among the kernels that have a queue), and its tests check the shaders against it:
//! a kernel appends only to the queues it declares, and the queue numbers agree with
//! queues.glsl.

use crate::interface::{QUEUE_CONNECT, QUEUE_EXTEND, QUEUE_SHADE};

/// A queue of paths waiting for one kernel; the value is its index in `QueueState`'s vectors
/// (the generated `QUEUE_*` constants the shaders use too).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Queue {
    Extend = QUEUE_EXTEND as isize,
    Shade = QUEUE_SHADE as isize,
    Connect = QUEUE_CONNECT as isize,
}

impl Queue {
    pub const ALL: [Queue; 3] = [Queue::Extend, Queue::Shade, Queue::Connect];

    pub fn index(self) -> usize {
        self as usize
    }
}

/// A kernel of the graph, named as its profiler scope and debug label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Compaction and new camera paths from the next tiles (`regenerate` step).
    Generate,
    /// Closest hit of each path's ray.
    Extend,
    /// Emission, a light sample, the BSDF-sampled continuation.
    ShadeSurface,
    /// Visibility of each shadow path's light sample.
    Connect,
}

/// One node: the queue it consumes (none for `generate`, which draws from the tiles) and the
/// queues it appends to, with the shader sources where those appends are written.
pub struct Node {
    pub kernel: Kernel,
    pub name: &'static str,
    pub consumes: Option<Queue>,
    pub feeds: &'static [Queue],
    /// Relative to shaders-glsl/.
    pub sources: &'static [&'static str],
}

pub const GRAPH: [Node; 4] = [
    Node {
        kernel: Kernel::Generate,
        name: "generate",
        consumes: None,
        feeds: &[Queue::Extend],
        sources: &["wavefront/generate.comp"],
    },
    Node {
        kernel: Kernel::Extend,
        name: "extend",
        consumes: Some(Queue::Extend),
        feeds: &[Queue::Shade],
        sources: &["include/route_hit.glsl"],
    },
    Node {
        kernel: Kernel::ShadeSurface,
        name: "shade_surface",
        consumes: Some(Queue::Shade),
        feeds: &[Queue::Extend, Queue::Connect],
        sources: &["wavefront/shade_surface.comp"],
    },
    Node {
        kernel: Kernel::Connect,
        name: "connect",
        consumes: Some(Queue::Connect),
        feeds: &[],
        sources: &["include/connect.glsl"],
    },
];

pub fn node(kernel: Kernel) -> &'static Node {
    GRAPH
        .iter()
        .find(|node| node.kernel == kernel)
        .expect("every kernel has a node")
}

/// The kernel that consumes `queue`.
pub fn consumer(queue: Queue) -> &'static Node {
    GRAPH
        .iter()
        .find(|node| node.consumes == Some(queue))
        .expect("every queue has a consumer")
}

/// The `KernelCounters` entry of `kernel`: generate's first, then one per queue in queue
/// order, for the kernel that consumes it (as `prepare_regenerate` and `prepare_launch` count).
pub fn counter_index(kernel: Kernel) -> usize {
    node(kernel).consumes.map_or(0, |queue| 1 + queue.index())
}

/// Whether `kernel` may create shadow paths, so that room for them must be ensured first.
pub fn creates_shadow_paths(kernel: Kernel) -> bool {
    node(kernel).feeds.contains(&Queue::Connect)
}

/// The GPU-driven schedule's sequence: breadth-first from `generate` along the edges, each
/// kernel once; with it, one iteration moves every path one step along.
pub fn flow_order() -> Vec<Kernel> {
    let mut order = vec![Kernel::Generate];
    let mut next = 0;
    while next < order.len() {
        for &queue in node(order[next]).feeds {
            let kernel = consumer(queue).kernel;
            if !order.contains(&kernel) {
                order.push(kernel);
            }
        }
        next += 1;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn shader(path: &str) -> String {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("shaders-glsl")
            .join(path);
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
    }

    fn glsl_name(queue: Queue) -> &'static str {
        match queue {
            Queue::Extend => "EXTEND",
            Queue::Shade => "SHADE",
            Queue::Connect => "CONNECT",
        }
    }

    /// The queues `source` appends to: those named in the arguments of its `enqueue(...)` and
    /// `enqueue_two(...)` calls, and extend and connect where it calls
    /// `enqueue_extend_and_connect`.
    fn appended_queues(source: &str) -> HashSet<String> {
        let mut queues = HashSet::new();
        if source.contains("enqueue_extend_and_connect(") {
            queues.extend(["EXTEND", "CONNECT"].map(String::from));
        }
        for call in ["enqueue(", "enqueue_two("] {
            for (start, _) in source.match_indices(call) {
                let arguments = &source[start + call.len()..];
                let arguments = &arguments[..arguments.find(')').unwrap_or(arguments.len())];
                for argument in arguments.split(',') {
                    if let Some(name) = argument.trim().strip_prefix("QUEUE_") {
                        queues.insert(name.to_string());
                    }
                }
            }
        }
        queues
    }

    /// A kernel appends (`enqueue(QUEUE_X, ...)`, `enqueue_extend_and_connect(...)`) or writes a
    /// queue's list (`c.x_queue).v[...] =`) exactly for the queues it declares.
    #[test]
    fn every_kernel_appends_only_where_the_graph_says() {
        assert_eq!(
            appended_queues("enqueue(QUEUE_SHADE, a); enqueue_extend_and_connect(b, c)"),
            ["SHADE", "CONNECT", "EXTEND"].map(String::from).into()
        );
        assert_eq!(
            appended_queues("enqueue_two(QUEUE_CONNECT, a, b)"),
            ["CONNECT"].map(String::from).into()
        );
        for node in &GRAPH {
            let source: String = node.sources.iter().map(|path| shader(path)).collect();
            let queues_appended = appended_queues(&source);
            let mut appended = HashSet::new();
            for queue in Queue::ALL {
                let name = glsl_name(queue);
                let list = format!("c.{}_queue).v[", name.to_lowercase());
                let writes_list = source
                    .lines()
                    .any(|line| line.contains(&list) && line.trim_end().ends_with(';') && line.contains("] ="));
                if queues_appended.contains(name) || writes_list {
                    appended.insert(queue);
                }
            }
            let declared: HashSet<Queue> = node.feeds.iter().copied().collect();
            assert_eq!(appended, declared, "{}", node.name);
        }
    }

    #[test]
    fn the_flow_order_visits_every_kernel_once_starting_with_generate() {
        assert_eq!(
            flow_order(),
            [Kernel::Generate, Kernel::Extend, Kernel::ShadeSurface, Kernel::Connect]
        );
        assert!(creates_shadow_paths(Kernel::ShadeSurface));
        let counters: HashSet<usize> = GRAPH.iter().map(|n| counter_index(n.kernel)).collect();
        assert_eq!(counters, (0..GRAPH.len()).collect());
        assert!(!creates_shadow_paths(Kernel::Extend));
    }
}
