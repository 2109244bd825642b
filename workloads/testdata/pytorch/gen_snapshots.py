#!/usr/bin/env python3
"""Writes small PyTorch memory snapshots for membench's reader tests.

The dicts follow the schema documented for torch.cuda.memory._snapshot()
(segments with blocks; device_traces with one list of trace entries per
device), pickled with the standard library so PyTorch is not needed.
Run from this folder: python3 gen_snapshots.py
"""
import pickle

BASE = 0x7F0000000000  # addresses above 2**32 exercise pickle's LONG1


def frames(name):
    return [{"filename": "model.py", "line": 42, "name": name}]


def entry(action, addr=None, size=0, **extra):
    e = {"action": action, "size": size, "stream": 0, "time_us": 1000,
         "frames": frames(action)}
    if addr is not None:
        e["addr"] = addr
    e.update(extra)
    return e


def basic():
    segments = [{
        "device": 0, "address": BASE, "total_size": 2 << 20, "stream": 0,
        "segment_type": "large", "allocated_size": 1536, "active_size": 1536,
        "requested_size": 1400,
        "blocks": [
            # Allocated in the trace and still live: not added twice.
            {"address": BASE, "size": 512, "requested_size": 400,
             "state": "active_allocated", "frames": frames("c")},
            {"address": BASE + 512, "size": 3584, "requested_size": 0,
             "state": "inactive", "frames": []},
            # Allocated before recording began, live at the snapshot.
            {"address": BASE + 4096, "size": 1024, "requested_size": 1000,
             "state": "active_allocated", "frames": []},
        ],
    }]
    trace = [
        entry("segment_alloc", BASE, 2 << 20),
        entry("alloc", BASE, 500),
        entry("alloc", BASE + 512, 3000),
        # Allocated before recording began, freed during it.
        entry("free_requested", BASE + 8192, 2048),
        entry("free_completed", BASE + 8192, 2048),
        entry("free_requested", BASE, 500),
        entry("free_completed", BASE, 500),
        entry("alloc", BASE, 400),  # reuses the address
        # A failed request: an OOM event, not an allocation.
        entry("oom", size=1 << 40, device_free=123),
        entry("annotate", 0, 0, stage="backward"),
        entry("segment_map", BASE + (2 << 20), 2 << 20),
        entry("segment_unmap", BASE + (2 << 20), 2 << 20),
        entry("free_requested", BASE + 512, 3000),
        entry("free_completed", BASE + 512, 3000),
        entry("snapshot", 0, 0),
    ]
    return {"segments": segments, "device_traces": [trace, []],
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": ""}}


def state_only():
    # History not recorded: only the blocks allocated at the snapshot.
    # Old-style blocks without addresses tile their segment.
    return {"segments": [{
        "device": 0, "address": BASE, "total_size": 4096, "stream": 0,
        "segment_type": "small",
        "blocks": [
            {"size": 1024, "requested_size": 1000, "state": "active_allocated"},
            {"size": 1024, "state": "inactive"},
            {"size": 2048, "requested_size": 2048, "state": "active_allocated"},
        ],
    }], "device_traces": [[]]}


def streams():
    # Two streams; the first free waits for another stream (record_stream):
    # its free_completed comes after other events.
    s2 = 0x5A5A0000
    trace = [
        entry("alloc", BASE, 1000),
        entry("alloc", BASE + 1024, 2000, stream=s2),
        entry("free_requested", BASE, 1000),
        entry("alloc", BASE + 4096, 500, stream=s2),
        entry("free_requested", BASE + 1024, 2000, stream=s2),
        entry("free_completed", BASE + 1024, 2000, stream=s2),
        entry("free_completed", BASE, 1000),
        entry("oom", size=1 << 30, stream=s2),
    ]
    return {"segments": [], "device_traces": [trace]}


def settings():
    """Recorded with expandable_segments:True: the 6 MiB request at the end
    fits 40 MiB only with them (membench's replay tests)."""
    mib = 1 << 20
    trace = [entry("alloc", BASE + k * 3 * mib, 3 * mib) for k in range(6)]
    for k in (0, 2, 4):
        trace.append(entry("free_requested", BASE + k * 3 * mib, 3 * mib))
        trace.append(entry("free_completed", BASE + k * 3 * mib, 3 * mib))
    trace += [entry("alloc", BASE + 18 * mib, 8 * mib),
              entry("alloc", BASE + 26 * mib, 8 * mib),
              entry("alloc", BASE + 34 * mib, 6 * mib)]
    return {"segments": [], "device_traces": [trace],
            "allocator_settings": {
                "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
                "max_split_size": 2**64 - 1, "garbage_collection_threshold": 0.0,
                "expandable_segments": True, "roundup_power2_divisions": {"1": 0}}}


def empty_cache():
    """Starts with an empty cache; calls empty_cache() (the first
    segment_free); the second segment_free is the allocator's release
    before it retries cudaMalloc, which succeeds (a segment_alloc follows);
    the third, before a retry that fails (an oom entry follows)."""
    mib = 1 << 20
    s1, s2, s3 = BASE, BASE + 64 * mib, BASE + 128 * mib
    trace = [
        entry("segment_alloc", s1, 20 * mib),
        entry("alloc", s1, 3 * mib),
        entry("free_requested", s1, 3 * mib),
        entry("free_completed", s1, 3 * mib),
        entry("segment_free", s1, 20 * mib),  # torch.cuda.empty_cache()
        entry("segment_alloc", s2, 24 * mib),
        entry("alloc", s2, 24 * mib),
        entry("free_requested", s2, 24 * mib),
        entry("free_completed", s2, 24 * mib),
        entry("segment_free", s2, 24 * mib),  # released to retry
        entry("segment_alloc", s3, 30 * mib),
        entry("alloc", s3, 30 * mib),
        entry("free_requested", s3, 30 * mib),
        entry("free_completed", s3, 30 * mib),
        entry("segment_free", s3, 30 * mib),  # released to retry, in vain
        entry("oom", size=40 * mib, device_free=0),
    ]
    return {"segments": [], "device_traces": [trace],
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": ""}}


def mid_run():
    """Recorded mid-run: three segments predate the first entry. The first
    holds a block freed in the trace (at 0) and one live throughout (at
    10 MiB); the small one a live block; the third is free and goes at the
    empty_cache() the trace starts with. The 12 MiB request then fits no
    free block: a new segment."""
    mib = 1 << 20
    s1, s2, s3, s4 = BASE, BASE + 64 * mib, BASE + 128 * mib, BASE + 192 * mib
    trace = [
        entry("segment_free", s3, 20 * mib),  # torch.cuda.empty_cache()
        entry("free_requested", s1, 3 * mib - 100),
        entry("free_completed", s1, 3 * mib - 100),
        entry("segment_alloc", s4, 12 * mib),
        entry("alloc", s4, 12 * mib),
        entry("alloc", s2 + 1024, 600000),
    ]
    segments = [
        {"device": 0, "address": s1, "total_size": 20 * mib, "stream": 0,
         "segment_type": "large", "is_expandable": False, "blocks": [
             {"address": s1, "size": 10 * mib, "requested_size": 0,
              "state": "inactive"},
             {"address": s1 + 10 * mib, "size": 4 * mib,
              "requested_size": 4 * mib, "state": "active_allocated"},
             {"address": s1 + 14 * mib, "size": 6 * mib, "requested_size": 0,
              "state": "inactive"}]},
        {"device": 0, "address": s2, "total_size": 2 * mib, "stream": 0,
         "segment_type": "small", "is_expandable": False, "blocks": [
             {"address": s2, "size": 1024, "requested_size": 1000,
              "state": "active_allocated"},
             {"address": s2 + 1024, "size": 600064,
              "requested_size": 600000, "state": "active_allocated"},
             {"address": s2 + 601088, "size": 2 * mib - 601088,
              "requested_size": 0, "state": "inactive"}]},
        {"device": 0, "address": s4, "total_size": 12 * mib, "stream": 0,
         "segment_type": "large", "is_expandable": False, "blocks": [
             {"address": s4, "size": 12 * mib, "requested_size": 12 * mib,
              "state": "active_allocated"}]},
    ]
    return {"segments": segments, "device_traces": [trace],
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": ""}}


def v113():
    """PyTorch 1.13: torch.cuda.memory._snapshot() is the list of segments;
    blocks carry no address but a history of the allocations made in them
    (newest first) when _record_memory_history(True) was on."""
    def hist(*sizes):
        return [{"addr": BASE, "real_size": n, "frames": frames("h")}
                for n in sizes]
    return [{
        "device": 0, "address": BASE, "total_size": 4096, "stream": 0,
        "segment_type": "small", "allocated_size": 1792, "active_size": 1792,
        "blocks": [
            # Held 512 B, then 1000 B, which is live at the snapshot.
            {"size": 1024, "state": "active_allocated",
             "history": hist(1000, 512)},
            {"size": 2048, "state": "inactive", "history": hist(2000)},
            # Allocated before the history was recorded.
            {"size": 768, "state": "active_allocated"},
            {"size": 256, "state": "inactive"},
        ],
    }, {
        "device": 1, "address": BASE, "total_size": 2 << 20, "stream": 0,
        "segment_type": "large", "allocated_size": 0, "active_size": 0,
        "blocks": [],
    }]


def write(name, obj, protocol=4):
    with open(name, "wb") as f:
        pickle.dump(obj, f, protocol=protocol)


def main():
    write("basic.pickle", basic())
    write("basic_p2.pickle", basic(), protocol=2)
    write("state_only.pickle", state_only())
    write("streams.pickle", streams())
    write("settings.pickle", settings())
    bad = settings()
    bad["allocator_settings"]["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:yes"
    write("settings_bad.pickle", bad)
    two = basic()
    two["device_traces"][1] = [entry("alloc", BASE, 64)]
    write("two_devices.pickle", two)
    two["device_traces"][1] = [entry("alloc", BASE, 64), entry("alloc", BASE, 64),
                               entry("teleport")]
    write("bad_device1.pickle", two)
    write("v113.pickle", v113())
    two = v113()
    two[1]["blocks"] = [{"size": 2 << 20, "state": "active_allocated"}]
    write("v113_two_devices.pickle", two)
    write("host_only.pickle", {"segments": [], "device_traces": [[], []],
                               "allocator_settings": {}})
    write("empty_cache.pickle", empty_cache())
    # Without expandable segments' entries, basic's cache is rebuilt: the
    # block freed before any alloc lies in the segment the trace allocates.
    bad = basic()
    bad["device_traces"][0] = [e for e in bad["device_traces"][0]
                               if e["action"] not in ("segment_map", "segment_unmap")]
    write("cache_unbuilt.pickle", bad)
    write("mid_run.pickle", mid_run())
    write("not_dict.pickle", [1, 2, 3])
    write("no_keys.pickle", {"blocks": []})
    bad = basic()
    del bad["device_traces"][0][1]["size"]
    write("missing_size.pickle", bad)
    bad = basic()
    # Actions of a newer PyTorch: skipped with a warning.
    bad["device_traces"][0][2]["action"] = "teleport"
    bad["device_traces"][0].insert(4, entry("warp", BASE, 1))
    bad["device_traces"][0].append(entry("teleport", BASE, 1))
    write("unknown_action.pickle", bad)
    write("not_segments.pickle", ["segments"])
    # The entry before the first one with an action is still read first.
    write("first_not_entry.pickle", {"device_traces": [[
        {"addr": BASE}, entry("alloc", BASE, 64)]]})
    bad = basic()
    bad["device_traces"][0][2]["addr"] = BASE  # BASE is still allocated
    write("double_alloc.pickle", bad)
    bad = basic()
    bad["device_traces"][0][1]["size"] = "big"
    write("size_str.pickle", bad)


if __name__ == "__main__":
    main()
