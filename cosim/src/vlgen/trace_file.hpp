// The file a VCD-writing model's trace goes to. Embedded in every such
// model's shim by cosim/src/vlgen.rs (`vlgen::shim`); not compiled on its own.
//
// Verilator's own file, when a write fails (a full disk), calls Verilator's
// fatal error, whose flush callback waits for the trace's own lock, already
// held: the process hangs. This one keeps the first failure, drops what
// follows, and the model's trace close returns the error number, which the
// Rust side reports as VlError::TraceWrite.
#include <cerrno>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace {
class TraceFile final : public VerilatedVcdFile {
  public:
    ~TraceFile() override { close(); }
    bool open(const std::string& name) override {
        if (m_fd >= 0) return false;
        m_fd = ::open(name.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0666);
        m_err = 0;
        return m_fd >= 0;
    }
    void close() override {
        if (m_fd < 0) return;
        if (::close(m_fd) != 0) fail(errno);
        m_fd = -1;
    }
    // All of it written, or (after a failure) none: Verilator sees it taken either way.
    ssize_t write(const char* bufp, ssize_t len) override {
        for (ssize_t at = 0; m_err == 0 && at < len;) {
            const ssize_t got = ::write(m_fd, bufp + at, static_cast<size_t>(len - at));
            if (got > 0) {
                at += got;
            } else if (got < 0 && errno == EINTR) {
                continue;
            } else {
                fail(got < 0 ? errno : EIO);
            }
        }
        return len;
    }
    // The errno of the first write that failed; 0 if none did.
    int error() const { return m_err; }

  private:
    int m_fd = -1;
    int m_err = 0;
    void fail(int err) {
        if (m_err == 0) m_err = err ? err : EIO;
    }
};
}  // namespace
