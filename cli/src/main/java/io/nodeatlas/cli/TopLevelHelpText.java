package io.nodeatlas.cli;

/** Written by TopLevelHelpTest with -Dnodeatlas.help.update=true: picocli's top-level help. */
final class TopLevelHelpText {

  private TopLevelHelpText() {}

  /** Plain, as picocli prints it at its default width. */
  static final String PLAIN =
      "Usage: nodeatlas [-hV] [COMMAND]\n"
      + "Discovers this node's hardware and hands it out through Kubernetes DRA and CDI.\n"
      + "  -h, --help      Show this help message and exit.\n"
      + "  -V, --version   Print version information and exit.\n"
      + "Commands:\n"
      + "  discover    Discover this node's devices and topology once and print them to\n"
      + "                stdout.\n"
      + "  cdi         Generate, list and validate Container Device Interface specs.\n"
      + "  match       Evaluate DeviceClass and ResourceClaim CEL selectors against this\n"
      + "                node's devices, or with --cluster or several saved nodes say on\n"
      + "                which nodes the claims (or a pod's) would fit, and why not.\n"
      + "  slices      Print the resource.k8s.io/v1 ResourceSlices `nodeatlas run` would\n"
      + "                publish for this node, without an API server.\n"
      + "  pools       Show what is allocated and what is left in every DRA pool of the\n"
      + "                cluster or of saved reports.\n"
      + "  run         Run the node agent: a DRA kubelet plugin that publishes this\n"
      + "                node's devices as ResourceSlices.\n"
      + "  doctor      Check this node for what would stop a prepared device from\n"
      + "                reaching its container, and say how to fix it.\n"
      + "  labels      Print node-feature-discovery labels of the devices `nodeatlas\n"
      + "                run` publishes.\n"
      + "  completion  Print the shell completion script for bash or zsh.\n"
      + "  help        Display help information about the specified command.\n";

  /** In colour (ANSI on). */
  static final String COLOUR =
      "Usage: \033[1mnodeatlas\033[21m\033[0m [\033[33m-hV\033[39m\033[0m] [COMMAND]\n"
      + "Discovers this node's hardware and hands it out through Kubernetes DRA and CDI.\n"
      + "  \033[33m-h\033[39m\033[0m, \033[33m--help\033[39m\033[0m      Show this help message and exit.\n"
      + "  \033[33m-V\033[39m\033[0m, \033[33m--version\033[39m\033[0m   Print version information and exit.\n"
      + "Commands:\n"
      + "  \033[1mdiscover\033[21m\033[0m    Discover this node's devices and topology once and print them to\n"
      + "                stdout.\n"
      + "  \033[1mcdi\033[21m\033[0m         Generate, list and validate Container Device Interface specs.\n"
      + "  \033[1mmatch\033[21m\033[0m       Evaluate DeviceClass and ResourceClaim CEL selectors against this\n"
      + "                node's devices, or with --cluster or several saved nodes say on\n"
      + "                which nodes the claims (or a pod's) would fit, and why not.\n"
      + "  \033[1mslices\033[21m\033[0m      Print the resource.k8s.io/v1 ResourceSlices `nodeatlas run` would\n"
      + "                publish for this node, without an API server.\n"
      + "  \033[1mpools\033[21m\033[0m       Show what is allocated and what is left in every DRA pool of the\n"
      + "                cluster or of saved reports.\n"
      + "  \033[1mrun\033[21m\033[0m         Run the node agent: a DRA kubelet plugin that publishes this\n"
      + "                node's devices as ResourceSlices.\n"
      + "  \033[1mdoctor\033[21m\033[0m      Check this node for what would stop a prepared device from\n"
      + "                reaching its container, and say how to fix it.\n"
      + "  \033[1mlabels\033[21m\033[0m      Print node-feature-discovery labels of the devices `nodeatlas\n"
      + "                run` publishes.\n"
      + "  \033[1mcompletion\033[21m\033[0m  Print the shell completion script for bash or zsh.\n"
      + "  \033[1mhelp\033[21m\033[0m        Display help information about the specified command.\n";
}
