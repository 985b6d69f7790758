# dualfuzz_judgements(<target> <json file> <namespace>): builds a protocol
# plug-in's findings on real servers judged by hand (campaign/judgements.h)
# into <target> as the text <namespace>::detail::kJudgementsJson, which the
# plug-in hands to campaign::Plugin::judgements.
#   dualfuzz_judgements(dualfuzz_http_plugin ${CMAKE_CURRENT_SOURCE_DIR}/judgements.json
#                       dualfuzz::http)
set(DUALFUZZ_JUDGEMENTS_TEMPLATE ${CMAKE_CURRENT_LIST_DIR}/judgements_text.cpp.in)
function(dualfuzz_judgements target json namespace)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${json})
  file(READ ${json} DUALFUZZ_JUDGEMENTS)
  # configure_file would replace an @NAME@ in it without a word. The raw
  # string's delimiter cannot occur in JSON: a ")" only appears inside
  # strings, where a quote is escaped.
  if(DUALFUZZ_JUDGEMENTS MATCHES "@[A-Za-z0-9_]+@")
    message(FATAL_ERROR "${json} holds an @NAME@, which configure_file would "
                        "replace: write it otherwise")
  endif()
  set(DUALFUZZ_JUDGEMENTS_FILE ${json})
  file(RELATIVE_PATH DUALFUZZ_JUDGEMENTS_FILE ${PROJECT_SOURCE_DIR} ${json})
  set(DUALFUZZ_JUDGEMENTS_NAMESPACE ${namespace})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}_judgements.cpp)
  configure_file(${DUALFUZZ_JUDGEMENTS_TEMPLATE} ${out} @ONLY)
  target_sources(${target} PRIVATE ${out})
endfunction()
