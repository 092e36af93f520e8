// A base for the types that own a resource (a GL object, a context, a window, device memory):
// neither copied nor assigned, since a copy would release the resource twice.
//
//   class Framebuffer : NonCopyable {
//    public:
//     ~Framebuffer();  // releases what it owns
//   };
#pragma once

namespace cudalab {

struct NonCopyable {
  NonCopyable() = default;
  NonCopyable(const NonCopyable&) = delete;
  NonCopyable& operator=(const NonCopyable&) = delete;
};

}  // namespace cudalab
