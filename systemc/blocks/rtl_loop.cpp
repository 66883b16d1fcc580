#include "blocks/rtl_loop.h"

namespace netasic {

rtl_loop& rtl_blocks() {
  static rtl_loop r;
  return r;
}

}  // namespace netasic
