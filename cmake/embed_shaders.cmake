# Embeds shaders/*.vert|*.frag into a generated header as raw string literals, so the binary is
# self-contained (a teacher can copy it to a server) and shaders still live as files in shaders/.
#   cmake -DSRC=<shaders dir> -DOUT=<header> -P embed_shaders.cmake
file(GLOB files ${SRC}/*.vert ${SRC}/*.frag)
list(SORT files)
set(text "// Generated from shaders/ by cmake/embed_shaders.cmake. Do not edit.\n#pragma once\n\nnamespace cudalab::shaders {\n")
foreach(f ${files})
  get_filename_component(name ${f} NAME)
  string(REPLACE "." "_" var ${name})
  file(READ ${f} content)
  string(APPEND text "inline constexpr const char* ${var} = R\"glsl(${content})glsl\";\n")
endforeach()
string(APPEND text "}  // namespace cudalab::shaders\n")
file(WRITE ${OUT}.tmp "${text}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
