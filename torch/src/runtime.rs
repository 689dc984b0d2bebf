//! What libtorch this program runs on: versions, devices, threads and CPU back-ends.

use std::fmt;

/// A snapshot of the libtorch runtime, for `fairyzero --version` / `info` and for logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeInfo {
    /// PyTorch version of the libtorch the program was linked against, e.g. `2.13.0+cu130`.
    /// Read at build time from the install (the C API has no version call); `unknown` if the
    /// install did not say.
    pub torch_version: &'static str,
    /// CUDA version that libtorch was built for, e.g. `13.0`; `None` for a CPU-only build.
    pub torch_cuda_build: Option<&'static str>,
    /// Directory of the libtorch shared libraries the binary's RUNPATH points at.
    pub libtorch_lib_dir: &'static str,
    /// At least one CUDA device is usable right now.
    pub cuda_available: bool,
    /// Number of CUDA devices found.
    pub cuda_device_count: i64,
    /// cuDNN is usable (requires a CUDA device).
    pub cudnn_available: bool,
    /// Threads libtorch uses inside one operation (OpenMP).
    pub intra_op_threads: i32,
    /// Threads libtorch uses to run independent operations concurrently.
    pub inter_op_threads: i32,
    pub has_openmp: bool,
    pub has_mkl: bool,
    pub has_mkldnn: bool,
    pub has_lapack: bool,
}

impl RuntimeInfo {
    /// The device the program would pick by default: the first CUDA device if any, else CPU.
    pub fn default_device(&self) -> tch::Device {
        if self.cuda_available {
            tch::Device::Cuda(0)
        } else {
            tch::Device::Cpu
        }
    }

    /// One-line description of the device found, e.g. `CPU (no CUDA device)` or
    /// `CUDA (2 devices)`.
    pub fn device_summary(&self) -> String {
        match (self.cuda_available, self.cuda_device_count) {
            (false, _) => "CPU (no CUDA device)".to_owned(),
            (true, 1) => "CUDA (1 device)".to_owned(),
            (true, n) => format!("CUDA ({n} devices)"),
        }
    }

    /// `2.13.0+cu130 (CUDA 13.0 build)` or `2.13.0+cpu (CPU-only build)`.
    pub fn torch_summary(&self) -> String {
        match self.torch_cuda_build {
            Some(cuda) => format!("{} (CUDA {cuda} build)", self.torch_version),
            None => format!("{} (CPU-only build)", self.torch_version),
        }
    }
}

/// The device a net should run on: the first CUDA device if libtorch sees one, else the CPU.
/// CUDA is only seen if the binary kept `libtorch_cuda.so` linked (see build.rs).
pub fn default_device() -> tch::Device {
    tch::Device::cuda_if_available()
}

/// A device that this machine cannot run on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DeviceError(String);

/// Checks that `device` exists here, before anything is created on it: libtorch panics
/// ("Found no NVIDIA driver", an invalid device ordinal) on the first tensor of a device it
/// cannot use, after commands have already written files.
pub fn require_device(device: tch::Device) -> Result<(), DeviceError> {
    let tch::Device::Cuda(index) = device else { return Ok(()) };
    let asked = format!("cuda:{index}");
    if env!("FAIRYZERO_TORCH_CUDA").is_empty() {
        return Err(DeviceError(format!(
            "device {asked}: this program's libtorch is a CPU-only build ({}); use the device cpu",
            env!("FAIRYZERO_TORCH_VERSION")
        )));
    }
    let count = tch::Cuda::device_count();
    if count <= 0 || !tch::Cuda::is_available() {
        return Err(DeviceError(format!(
            "device {asked}: libtorch finds no CUDA device on this machine (no GPU, or no NVIDIA driver); use the device cpu (or auto)"
        )));
    }
    if index as i64 >= count {
        return Err(DeviceError(format!(
            "device {asked}: this machine has {count} CUDA device{} (cuda:0{})",
            if count == 1 { "" } else { "s" },
            if count == 1 { String::new() } else { format!(" to cuda:{}", count - 1) }
        )));
    }
    Ok(())
}

/// libtorch settings for fast inference and training on `device`, applied at the start of a
/// backend or trainer; nothing happens unless `device` is CUDA (process-wide settings, so
/// calling it again is harmless).
///
/// - cuDNN benchmark mode (`torch.backends.cudnn.benchmark`): cuDNN times its convolution
///   algorithms on the first forward of each input shape and keeps the fastest. Each new batch
///   size is a new shape, so the first batches of each size are slower (once per process);
/// - TF32: tch has no setter. ATen's defaults stand: TF32 on for cuDNN convolutions, off for
///   matmuls (the linear layers of the heads); `NVIDIA_TF32_OVERRIDE=0` turns it off for all.
pub fn configure_cuda(device: tch::Device) {
    if device.is_cuda() {
        tch::Cuda::cudnn_set_benchmark(true);
    }
}

/// Sets libtorch's intra-op thread count for the calling thread and the threads it starts
/// afterwards (call it early, before worker threads exist).
pub fn set_threads(n: usize) {
    tch::set_num_threads(n.max(1) as i32);
}

/// Seeds libtorch's global generator (weight initialisation, dropout-free sampling in the
/// trainer), so that a run with a fixed seed starts from the same weights.
pub fn manual_seed(seed: u64) {
    tch::manual_seed(seed as i64);
}

/// Queries libtorch. Cheap after the first call; the first call loads the CUDA runtime, if
/// libtorch has one, to count devices.
pub fn runtime_info() -> RuntimeInfo {
    let cuda_available = tch::Cuda::is_available();
    RuntimeInfo {
        torch_version: env!("FAIRYZERO_TORCH_VERSION"),
        torch_cuda_build: Some(env!("FAIRYZERO_TORCH_CUDA")).filter(|v| !v.is_empty()),
        libtorch_lib_dir: env!("FAIRYZERO_TORCH_LIB"),
        cuda_available,
        cuda_device_count: tch::Cuda::device_count(),
        cudnn_available: cuda_available && tch::Cuda::cudnn_is_available(),
        intra_op_threads: tch::get_num_threads(),
        inter_op_threads: tch::get_num_interop_threads(),
        has_openmp: tch::utils::has_openmp(),
        has_mkl: tch::utils::has_mkl(),
        has_mkldnn: tch::utils::has_mkldnn(),
        has_lapack: tch::utils::has_lapack(),
    }
}

impl fmt::Display for RuntimeInfo {
    /// A `key: value` report, one item per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        writeln!(f, "libtorch:          {}", self.torch_summary())?;
        writeln!(f, "libtorch lib dir:  {}", self.libtorch_lib_dir)?;
        writeln!(f, "device:            {}", self.device_summary())?;
        writeln!(f, "CUDA devices:      {}", self.cuda_device_count)?;
        writeln!(f, "cuDNN available:   {}", yes_no(self.cudnn_available))?;
        writeln!(f, "intra-op threads:  {}", self.intra_op_threads)?;
        writeln!(f, "inter-op threads:  {}", self.inter_op_threads)?;
        writeln!(f, "OpenMP:            {}", yes_no(self.has_openmp))?;
        writeln!(f, "MKL:               {}", yes_no(self.has_mkl))?;
        writeln!(f, "MKL-DNN (oneDNN):  {}", yes_no(self.has_mkldnn))?;
        write!(f, "LAPACK:            {}", yes_no(self.has_lapack))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_the_pinned_torch_version() {
        let info = runtime_info();
        // tch 0.26 refuses to build against anything but 2.13.x.
        assert!(info.torch_version.starts_with("2.13."), "{}", info.torch_version);
        assert!(info.intra_op_threads >= 1);
        assert_eq!(info.cuda_available, info.cuda_device_count > 0);
        assert_eq!(info.default_device() == tch::Device::Cpu, !info.cuda_available);
    }

    #[test]
    fn a_missing_cuda_device_is_an_error_not_a_panic() {
        assert_eq!(require_device(tch::Device::Cpu), Ok(()));
        let count = tch::Cuda::device_count();
        let err = require_device(tch::Device::Cuda(count as usize + 3)).unwrap_err().to_string();
        assert!(err.contains(&format!("cuda:{}", count + 3)), "{err}");
        if count == 0 {
            let err = require_device(tch::Device::Cuda(0)).unwrap_err().to_string();
            assert!(err.contains("cuda:0") && err.contains("cpu"), "{err}");
        } else {
            assert_eq!(require_device(tch::Device::Cuda(0)), Ok(()));
        }
    }

    #[test]
    fn libtorch_computes() {
        let x = tch::Tensor::from_slice(&[1.0f32, 2.0, 3.0]);
        let sum = f32::try_from((&x * &x).sum(tch::Kind::Float)).unwrap();
        assert_eq!(sum, 14.0);
    }

    /// Without `--no-as-needed` in build.rs the linker drops libtorch_cuda.so and CUDA is
    /// silently unavailable even on a GPU machine. The test binary is linked the same way as
    /// the `fairyzero` binary, so check that the library is mapped into this process.
    #[test]
    #[cfg(target_os = "linux")]
    fn keeps_libtorch_cuda_linked() {
        let info = runtime_info();
        if info.torch_cuda_build.is_none() {
            return; // CPU-only libtorch has no libtorch_cuda.so.
        }
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        assert!(maps.contains("libtorch_cuda.so"), "libtorch_cuda.so is not loaded");
    }
}
