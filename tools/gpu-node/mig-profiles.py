#!/usr/bin/env python3
"""Reads, and only reads, what NVML says about MIG on each GPU: the mode, the GPU instance profiles
with their slices, memory and engines, their possible placements and remaining capacity, and the
instances that exist. Uses NVIDIA's own Python binding (nvidia-ml-py) for the struct layouts.

Never enables MIG, creates or destroys an instance, or changes a setting: the calls below are the
NVML reference's "query" calls (nvmlDeviceGetMigMode, nvmlDeviceGetGpuInstanceProfileInfo[V],
nvmlDeviceGetGpuInstancePossiblePlacements_v2, nvmlDeviceGetGpuInstanceRemainingCapacity,
nvmlDeviceGetGpuInstances, nvmlDeviceGetMaxMigDeviceCount).
  python3 tools/gpu-node/mig-profiles.py > mig.json
"""
import ctypes
import json
import sys

import pynvml as n


def struct_dict(s):
    out = {}
    for field in getattr(s, "_fields_", []):
        name = field[0]
        value = getattr(s, name)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        elif hasattr(value, "_fields_"):
            value = struct_dict(value)
        elif isinstance(value, ctypes.Array):
            value = list(value)
        out[name] = value
    return out


def attempt(fn, *args):
    try:
        return {"ok": fn(*args)}
    except n.NVMLError as e:
        return {"error": str(e), "code": getattr(e, "value", None)}
    except Exception as e:  # a binding without the call, or another signature
        return {"error": f"{type(e).__name__}: {e}"}


def placements(h, profile_id):
    """nvmlDeviceGetGpuInstancePossiblePlacements_v2 called directly: the binding's wrapper differs by version."""
    fn = n._nvmlGetFunctionPointer("nvmlDeviceGetGpuInstancePossiblePlacements_v2")
    count = ctypes.c_uint(0)
    ret = fn(h, ctypes.c_uint(profile_id), None, ctypes.byref(count))
    if ret != 0:
        raise n.NVMLError(ret)
    arr = (n.c_nvmlGpuInstancePlacement_t * max(count.value, 1))()
    ret = fn(h, ctypes.c_uint(profile_id), arr, ctypes.byref(count))
    if ret != 0:
        raise n.NVMLError(ret)
    return [{"start": arr[i].start, "size": arr[i].size} for i in range(count.value)]


def main():
    n.nvmlInit()
    report = {"driver": n.nvmlSystemGetDriverVersion(), "nvml": n.nvmlSystemGetNVMLVersion(),
              "binding": getattr(n, "__version__", "?"), "gpus": []}
    profile_count = getattr(n, "NVML_GPU_INSTANCE_PROFILE_COUNT", 15)
    for i in range(n.nvmlDeviceGetCount()):
        h = n.nvmlDeviceGetHandleByIndex(i)
        gpu = {"index": i, "name": n.nvmlDeviceGetName(h), "uuid": n.nvmlDeviceGetUUID(h),
               "memoryTotalBytes": n.nvmlDeviceGetMemoryInfo(h).total,
               "migMode": attempt(n.nvmlDeviceGetMigMode, h),
               "maxMigDeviceCount": attempt(n.nvmlDeviceGetMaxMigDeviceCount, h),
               "profiles": []}
        for p in range(profile_count):
            entry = {"profile": p}
            info = attempt(lambda: n.nvmlDeviceGetGpuInstanceProfileInfo(h, p, 2))
            if "error" in info:
                info = attempt(lambda: n.nvmlDeviceGetGpuInstanceProfileInfo(h, p))
            if "ok" in info:
                entry["info"] = struct_dict(info["ok"])
                pid = entry["info"].get("id", p)
                entry["placements"] = attempt(placements, h, pid)
                entry["remainingCapacity"] = attempt(n.nvmlDeviceGetGpuInstanceRemainingCapacity, h, pid)
                existing = attempt(lambda: [struct_dict(n.nvmlGpuInstanceGetInfo(g))
                                            for g in n.nvmlDeviceGetGpuInstances(h, pid)])
                entry["existingInstances"] = existing
            else:
                entry["error"] = info["error"]
                entry["code"] = info.get("code")
            gpu["profiles"].append(entry)
        report["gpus"].append(gpu)
    n.nvmlShutdown()
    json.dump(report, sys.stdout, indent=1, default=str)
    print()


if __name__ == "__main__":
    main()
