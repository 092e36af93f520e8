# Generates the OpenGL 4.5 core and EGL 1.5 loader with Debian's glad 2 generator at build time.
# --reproducible makes glad use the Khronos XML it ships instead of downloading the latest.
find_program(GLAD_EXECUTABLE glad REQUIRED)
set(GLAD_OUT ${CMAKE_BINARY_DIR}/glad)
set(GLAD_EXTENSIONS
    EGL_EXT_platform_base,EGL_EXT_platform_device,EGL_EXT_device_base,EGL_EXT_device_enumeration,EGL_EXT_device_query,EGL_NV_device_cuda,EGL_MESA_platform_surfaceless,EGL_KHR_surfaceless_context,EGL_KHR_create_context,EGL_EXT_device_drm)
add_custom_command(
  OUTPUT ${GLAD_OUT}/src/gl.c ${GLAD_OUT}/src/egl.c ${GLAD_OUT}/include/glad/gl.h
         ${GLAD_OUT}/include/glad/egl.h
  COMMAND ${GLAD_EXECUTABLE} --api gl:core=4.5,egl=1.5 --extensions ${GLAD_EXTENSIONS}
          --out-path ${GLAD_OUT} --reproducible --quiet c --loader
  COMMENT "Generating the GL/EGL loader with glad (--reproducible, no download)"
  VERBATIM)
add_library(glad STATIC ${GLAD_OUT}/src/gl.c ${GLAD_OUT}/src/egl.c)
target_include_directories(glad SYSTEM PUBLIC ${GLAD_OUT}/include)
target_link_libraries(glad PUBLIC ${CMAKE_DL_LIBS})
set_target_properties(glad PROPERTIES POSITION_INDEPENDENT_CODE ON)
