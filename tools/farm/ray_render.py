#!/usr/bin/env python3
"""Renders one image as partial renders on a Ray cluster, then merges them exactly.

The image is cut into sample ranges x tiles (`wavetrace render --samples A..B --tile X Y W H`);
each part is a Ray task that asks for one GPU (`num_gpus=1`), runs wavetrace on the node that
Ray picked and returns the partial film's bytes through Ray's object store. Ray retries a task
whose worker or node is lost, or whose wavetrace died of a signal (`max_retries`); since a part
is a pure function of the scene, settings and sample range, a retried part is the same bits, and
`wavetrace merge` adds the parts into the image a one-machine render gives. Ray does the
scheduling, retrying and data movement; this script only plans parts and gathers them. See
docs/SCALE.md.

    python3 tools/farm/ray_render.py SCENE -o OUT.exr --sample-parts 4 --tiles 2x2 \\
        [--address ADDR | --local-workers 3] -- --res 1024 1024 --spp 1024 --max-depth 8

Everything after `--` goes to every `wavetrace render` (it must give --spp: the parts split
it). --local-workers N starts a cluster on this machine (a head and N worker nodes, one GPU
each, as lavapipe has it: Vulkan devices are not CUDA devices, so Ray counts them as declared).
--kill-worker-after K removes a worker node, with its running task, once K parts are done:
the fault a farm sees when a machine dies.
"""

import argparse
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import ray


def plan_parts(width, height, spp, sample_parts, tiles):
    """Sample ranges x tiles, as (first, end, x, y, w, h), covering the image once."""
    columns, rows = tiles
    cut = lambda n, k: [(n * i // k, n * (i + 1) // k) for i in range(k)]
    parts = []
    for first, end in cut(spp, sample_parts):
        for x0, x1 in cut(width, columns):
            for y0, y1 in cut(height, rows):
                if first < end and x0 < x1 and y0 < y1:
                    parts.append((first, end, x0, y0, x1 - x0, y1 - y0))
    return parts


def pack_scene(scene):
    """The scene's folder as a tar archive: what a node needs to render it (wavetrace reads
    only files beside the scene unless told otherwise)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(scene.parent, arcname="scene")
    return buffer.getvalue()


def unpack_scene(archive, scene_name):
    """Unpacks once per node and archive (by digest) into a cache folder."""
    digest = hashlib.sha256(archive).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / "wavetrace-farm" / digest
    if not folder.exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix="unpack-", dir=folder.parent))
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            # Python before 3.11.4 (Debian 12's) has no extraction filter: refuse what one would.
            for member in tar.getmembers():
                inside = Path(member.name).parts[:1] == ("scene",) and ".." not in Path(member.name).parts
                if not inside or not (member.isfile() or member.isdir()):
                    raise RuntimeError(f"scene archive: refusing {member.name}")
            tar.extractall(staging)
        try:
            os.rename(staging, folder)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)  # another task unpacked it first
    return folder / "scene" / scene_name


class RendererDied(RuntimeError):
    """wavetrace died of a signal (a crash, the kernel's OOM killer): a fault of the attempt,
    like a lost node, not of the part, so Ray runs the part again. An error wavetrace reports
    itself (a bad scene, a device without the features) is the part's, and is not retried."""


# Ray starts a fresh worker process for every GPU task unless told (max_calls=1 frees a
# CUDA context): wavetrace's own process holds the GPU here, so workers are reused.
@ray.remote(num_gpus=1, max_retries=4, max_calls=0, retry_exceptions=[RendererDied])
def render_part(wavetrace, archive, scene_name, render_args, part, trace_dir):
    """One partial render on this node's GPU; returns the partial film's bytes and timings."""
    started = time.time()
    node = ray.get_runtime_context().get_node_id()
    scene = unpack_scene(archive, scene_name)
    first, end, x, y, w, h = part
    environment = dict(os.environ)
    gpus = ray.get_gpu_ids()
    if gpus:
        environment["WAVETRACE_DEVICE"] = str(int(gpus[0]))
    if trace_dir:
        # Written aside and renamed, so that the driver never reads half a marker.
        marker = os.path.join(trace_dir, f"{os.getpid()}-{time.time_ns()}")
        with open(marker + ".tmp", "w") as f:
            f.write(json.dumps({"part": part, "node": node, "pid": os.getpid()}))
        os.rename(marker + ".tmp", marker + ".json")
    with tempfile.TemporaryDirectory() as folder:
        output = os.path.join(folder, "part.exr")
        command = [wavetrace, "render", str(scene), "-o", output, "--samples", f"{first}..{end}",
                   "--tile", str(x), str(y), str(w), str(h), "--stats", "--json"] + render_args
        process_started = time.time()
        result = subprocess.run(command, capture_output=True, text=True, env=environment)
        process_seconds = time.time() - process_started
        if result.returncode < 0:
            message = (f"part {part}: {' '.join(command)} died of signal {-result.returncode}: "
                       f"{result.stderr.strip()}")
            if trace_dir:
                # The driver reports every death, though Ray's retry hides it from the result.
                with open(marker + ".died.tmp", "w") as f:
                    f.write(message)
                os.rename(marker + ".died.tmp", marker + ".died")
            raise RendererDied(message)
        if result.returncode != 0:
            raise RuntimeError(f"part {part}: {' '.join(command)}: {result.stderr.strip()}")
        stats = json.loads(result.stdout[result.stdout.index("{"):])
        with open(output, "rb") as f:
            film = f.read()
    render_seconds = stats.get("render_seconds", stats.get("wall_seconds", 0.0))
    return film, {"part": part, "node": node, "task_seconds": time.time() - started,
                  "process_seconds": process_seconds, "render_seconds": render_seconds}


@ray.remote(num_gpus=1, max_retries=0, max_calls=0)
def nothing():
    return None


def kill_busy_worker(cluster, workers, trace_dir, pending):
    """Removes a worker node of the local cluster that is rendering a part of `pending` (its
    task started, per the markers tasks leave in `trace_dir`, and its result not in), as a
    machine dying mid-task."""
    if cluster is None or not trace_dir:
        sys.exit("ray_render.py: --kill-worker-after needs --local-workers and --trace-dir")
    # The driver's own node (on one host Ray may attach it to any) must stay.
    driver_node = ray.get_runtime_context().get_node_id()
    deadline = time.time() + 60
    while time.time() < deadline:
        ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0)
        unfinished = [list(pending[r]) for r in pending if r not in ready]
        for marker in sorted(Path(trace_dir).glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True):
            started = json.loads(marker.read_text())
            busy = [w for w in workers if w.node_id == started["node"] != driver_node]
            if started["part"] in unfinished and busy:
                workers.remove(busy[0])
                cluster.remove_node(busy[0], allow_graceful=False)
                # The node's worker (and its wavetrace) outlive the raylet a while and would
                # still deliver the part: a dead machine takes every process with it.
                kill_tree(started["pid"])
                return busy[0]
        time.sleep(0.01)
    sys.exit("ray_render.py: no worker node was rendering a part for 60 s")


def kill_tree(pid):
    import psutil  # a dependency of Ray's
    try:
        process = psutil.Process(pid)
        # The worker first: it must not outlive its wavetrace long enough to see it die.
        for child in [process] + process.children(recursive=True):
            child.kill()
    except psutil.NoSuchProcess:
        pass


def gpu_nodes():
    return [n for n in ray.nodes() if n["Alive"] and n["Resources"].get("GPU", 0) > 0]


def parse_args(argv):
    if "--" in argv:
        split = argv.index("--")
        argv, render_args = argv[:split], argv[split + 1:]
    else:
        render_args = []
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("scene", type=Path)
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--sample-parts", type=int, default=4)
    parser.add_argument("--tiles", default="2x2", help="columns x rows of tiles")
    parser.add_argument("--address", help="an existing Ray cluster (ray start --head ...)")
    parser.add_argument("--local-workers", type=int, default=0)
    parser.add_argument("--kill-worker-after", type=int, default=None)
    parser.add_argument("--wavetrace", default=os.environ.get("WAVETRACE_BIN") or shutil.which("wavetrace"))
    parser.add_argument("--parts-dir", type=Path, help="keep the partial films here")
    parser.add_argument("--trace-dir", help="a folder every task attempt leaves a marker in (local clusters)")
    parser.add_argument("--measure-overhead", action="store_true", help="time empty GPU tasks first")
    parser.add_argument("--seed", type=int, default=0, help="the order parts are submitted in")
    args = parser.parse_args(argv)
    args.render_args = render_args
    return args


def image_size(args):
    """The image's size and samples from the render arguments (--res W H and --spp N)."""
    r = args.render_args
    if "--res" not in r or "--spp" not in r:
        sys.exit("ray_render.py: give `-- --res W H --spp N ...` (the parts split them)")
    i = r.index("--res")
    width, height = int(r[i + 1]), int(r[i + 2])
    r = r[:i] + r[i + 3:]
    j = r.index("--spp")
    spp = int(r[j + 1])
    return width, height, spp, r[:j] + r[j + 2:]


def start_cluster(args):
    if args.local_workers:
        from ray.cluster_utils import Cluster
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "num_gpus": 0})
        workers = [cluster.add_node(num_cpus=1, num_gpus=1) for _ in range(args.local_workers)]
        ray.init(address=cluster.address, logging_level="ERROR", log_to_driver=False)
        cluster.wait_for_nodes()
        return cluster, workers
    ray.init(address=args.address or "auto", logging_level="ERROR", log_to_driver=False)
    return None, []


def main(argv):
    args = parse_args(argv)
    if not args.wavetrace:
        sys.exit("ray_render.py: no wavetrace binary (--wavetrace PATH or WAVETRACE_BIN)")
    width, height, spp, render_args = image_size(args)
    columns, rows = (int(n) for n in args.tiles.split("x"))
    parts = plan_parts(width, height, spp, args.sample_parts, (columns, rows))
    random.Random(args.seed).shuffle(parts)
    render_args = ["--res", str(width), str(height)] + render_args

    cluster, workers = start_cluster(args)
    report = {"parts": len(parts), "gpu_nodes": len(gpu_nodes())}
    if args.measure_overhead:
        # Ray's own cost of a GPU task: empty tasks once the workers have started, per task
        # and node (the nodes run them side by side).
        ray.get([nothing.remote() for _ in range(report["gpu_nodes"])])
        started = time.time()
        ray.get([nothing.remote() for _ in range(len(parts))])
        report["empty_task_seconds"] = (time.time() - started) / len(parts) * report["gpu_nodes"]

    started = time.time()
    archive = ray.put(pack_scene(args.scene))
    pending = {render_part.remote(args.wavetrace, archive, args.scene.name, render_args, part, args.trace_dir): part
               for part in parts}
    films, timings, killed = [], [], None
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        film, timing = ray.get(done[0])
        del pending[done[0]]
        films.append(film)
        timings.append(timing)
        if args.kill_worker_after is not None and killed is None and len(films) >= args.kill_worker_after:
            killed = kill_busy_worker(cluster, workers, args.trace_dir, pending)
            report["killed_node"] = killed.node_id
            print(f"ray_render.py: killed worker node {killed.node_id} while it rendered a part, "
                  f"{len(pending)} parts left", flush=True)
    gathered = time.time()
    if args.trace_dir:
        report["renderer_deaths"] = [p.read_text() for p in sorted(Path(args.trace_dir).glob("*.died"))]

    folder = args.parts_dir or Path(tempfile.mkdtemp(prefix="wavetrace-parts-"))
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, film in enumerate(films):
        path = folder / f"part-{index:04d}.exr"
        path.write_bytes(film)
        paths.append(str(path))
    merge = subprocess.run([args.wavetrace, "merge", *paths, "-o", str(args.output)], capture_output=True, text=True)
    if merge.returncode != 0:
        sys.exit(f"ray_render.py: merge failed: {merge.stderr.strip()}")
    merged = time.time()
    if not args.parts_dir:
        shutil.rmtree(folder, ignore_errors=True)

    mean = lambda key: sum(t[key] for t in timings) / len(timings)
    report.update({
        "render_args": render_args,
        "wall_seconds": gathered - started,
        "merge_seconds": merged - gathered,
        "mean_task_seconds": mean("task_seconds"),
        "mean_process_seconds": mean("process_seconds"),
        "mean_render_seconds": mean("render_seconds"),
        # What a task costs beyond wavetrace's own rendering: the process (start, scene load,
        # device, pipelines, acceleration structures, EXR) and Ray's scheduling and transfer.
        "mean_overhead_seconds": mean("task_seconds") - mean("render_seconds"),
        "partial_bytes": sum(len(f) for f in films),
        "nodes_used": len({t["node"] for t in timings}),
    })
    print(json.dumps(report, indent=2))
    ray.shutdown()
    if cluster:
        cluster.shutdown()


if __name__ == "__main__":
    main(sys.argv[1:])
