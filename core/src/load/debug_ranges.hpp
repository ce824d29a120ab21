// The source-range records of TorchScript code (code/*.py.debug_pkl), checked before libtorch reads
// them. libtorch unpickles them only to show where an error is, and then indexes its string table
// with the record's numbers unchecked: a corrupt record crashes the process inside the error report.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace t2o::core {

// Why libtorch would read out of bounds (or misread) the records `pickle`, or nothing. Records whose
// shape is not one PyTorch writes are refused too.
std::optional<std::string> debug_ranges_problem(const std::vector<unsigned char>& pickle);

}  // namespace t2o::core
