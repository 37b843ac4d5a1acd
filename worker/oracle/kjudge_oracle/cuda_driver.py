"""The few CUDA driver calls the oracle makes itself, through ctypes on libcuda.so.1.

Why: the judge shares its tensors as CUDA VMM allocations exported as POSIX file descriptors
(worker/gpu/shared_allocation.cc); torch has no API to import those, so the oracle maps them
into torch's primary context with the driver API and wraps the pointer zero-copy.

Contract:
  * Driver() loads libcuda.so.1 or raises OracleError saying so.
  * import_map(fd, size, device) imports the fd (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
    reserves `size` bytes of address space, maps the allocation, grants the device read-write
    access and releases the imported handle (the mapping keeps the memory alive). It returns the
    device pointer; on failure it undoes what it did and raises OracleError naming the call.
    The caller still owns (and closes) the fd.
  * unmap(ptr, size) undoes import_map.
  * reset_persisting_l2() calls cuCtxResetPersistingL2Cache where the driver has it (no-op
    otherwise).
  * Every call runs with torch's primary context of `device` current on the calling thread
    (ensure_context makes it so when torch has not yet).
"""
from __future__ import annotations

import ctypes
from typing import Optional

from .errors import OracleError

CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1
CU_MEM_LOCATION_TYPE_DEVICE = 0x1
CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3
CU_MEM_ALLOCATION_TYPE_PINNED = 0x1

CUdeviceptr = ctypes.c_uint64
CUmemHandle = ctypes.c_uint64


class CUmemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class CUmemAccessDesc(ctypes.Structure):
    _fields_ = [("location", CUmemLocation), ("flags", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class CUmemAllocationProp(ctypes.Structure):
    """Used by tests that play the judge's part (creating and exporting an allocation)."""
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int),
                ("location", CUmemLocation), ("win32HandleMetaData", ctypes.c_void_p),
                ("allocFlags", _AllocFlags)]


class Driver:
    """libcuda.so.1, with argument types declared for the calls used here."""

    def __init__(self) -> None:
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as exc:
            raise OracleError(f"cannot load the CUDA driver libcuda.so.1: {exc}") from exc
        lib = self.lib
        sigs = {
            "cuMemImportFromShareableHandle": [ctypes.POINTER(CUmemHandle), ctypes.c_void_p,
                                               ctypes.c_int],
            "cuMemAddressReserve": [ctypes.POINTER(CUdeviceptr), ctypes.c_size_t, ctypes.c_size_t,
                                    CUdeviceptr, ctypes.c_ulonglong],
            "cuMemAddressFree": [CUdeviceptr, ctypes.c_size_t],
            "cuMemMap": [CUdeviceptr, ctypes.c_size_t, ctypes.c_size_t, CUmemHandle,
                         ctypes.c_ulonglong],
            "cuMemUnmap": [CUdeviceptr, ctypes.c_size_t],
            "cuMemSetAccess": [CUdeviceptr, ctypes.c_size_t, ctypes.POINTER(CUmemAccessDesc),
                               ctypes.c_size_t],
            "cuMemRelease": [CUmemHandle],
            "cuMemCreate": [ctypes.POINTER(CUmemHandle), ctypes.c_size_t,
                            ctypes.POINTER(CUmemAllocationProp), ctypes.c_ulonglong],
            "cuMemExportToShareableHandle": [ctypes.c_void_p, CUmemHandle, ctypes.c_int,
                                             ctypes.c_ulonglong],
            "cuMemGetAllocationGranularity": [ctypes.POINTER(ctypes.c_size_t),
                                              ctypes.POINTER(CUmemAllocationProp), ctypes.c_int],
            "cuGetErrorName": [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)],
            "cuCtxGetCurrent": [ctypes.POINTER(ctypes.c_void_p)],
            "cuCtxSetCurrent": [ctypes.c_void_p],
            "cuDeviceGet": [ctypes.POINTER(ctypes.c_int), ctypes.c_int],
            "cuDevicePrimaryCtxRetain": [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int],
        }
        for name, args in sigs.items():
            try:
                fn = getattr(lib, name)
            except AttributeError as exc:
                raise OracleError(f"the CUDA driver lacks {name} (VMM needs CUDA >= 10.2)") from exc
            fn.argtypes = args
            fn.restype = ctypes.c_int
        self._reset_l2 = getattr(lib, "cuCtxResetPersistingL2Cache", None)
        if self._reset_l2 is not None:
            self._reset_l2.argtypes = []
            self._reset_l2.restype = ctypes.c_int

    def check(self, result: int, what: str) -> None:
        """Raises OracleError naming `what` and the driver's error name when result != 0."""
        if result == 0:
            return
        name = ctypes.c_char_p()
        self.lib.cuGetErrorName(result, ctypes.byref(name))
        text = name.value.decode() if name.value else f"CUresult {result}"
        raise OracleError(f"{what} failed: {text}")

    def ensure_context(self, device: int) -> None:
        """Makes `device`'s primary context (torch's) current on this thread if none is."""
        ctx = ctypes.c_void_p()
        self.check(self.lib.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
        if ctx.value:
            return
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), device), "cuDeviceGet")
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
        self.check(self.lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")

    def import_map(self, fd: int, size: int, device: int) -> int:
        """Maps the allocation exported as `fd` (`size` bytes) read-write; returns its address."""
        self.ensure_context(device)
        handle = CUmemHandle()
        self.check(self.lib.cuMemImportFromShareableHandle(
            ctypes.byref(handle), ctypes.c_void_p(fd), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
            f"cuMemImportFromShareableHandle(fd {fd})")
        ptr = CUdeviceptr()
        try:
            self.check(self.lib.cuMemAddressReserve(ctypes.byref(ptr), size, 0, 0, 0),
                       f"cuMemAddressReserve({size} bytes)")
            try:
                self.check(self.lib.cuMemMap(ptr, size, 0, handle, 0), f"cuMemMap({size} bytes)")
                access = CUmemAccessDesc(CUmemLocation(CU_MEM_LOCATION_TYPE_DEVICE, device),
                                         CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
                err = self.lib.cuMemSetAccess(ptr, size, ctypes.byref(access), 1)
                if err != 0:
                    self.lib.cuMemUnmap(ptr, size)
                    self.check(err, "cuMemSetAccess")
            except OracleError:
                self.lib.cuMemAddressFree(ptr, size)
                raise
        finally:
            self.lib.cuMemRelease(handle)  # the mapping (if any) holds the memory from here on
        return int(ptr.value)

    def unmap(self, ptr: int, size: int) -> None:
        """Undoes import_map (errors are reported, the address range is freed regardless)."""
        err = self.lib.cuMemUnmap(ptr, size)
        self.lib.cuMemAddressFree(ptr, size)
        self.check(err, "cuMemUnmap")

    def reset_persisting_l2(self) -> None:
        if self._reset_l2 is not None:
            self._reset_l2()


_driver: Optional[Driver] = None


def driver() -> Driver:
    """The process's Driver (loaded on first use)."""
    global _driver  # pylint: disable=global-statement
    if _driver is None:
        _driver = Driver()
    return _driver
