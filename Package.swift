// swift-tools-version:6.0
// touchrouter: a kiosk touch router. The targets follow the data flow:
// input → layout/hit-test → tracking → dispatch → transport, with the daemon's glue around it.
import PackageDescription

/// How release executables are linked (docs/operations.md, "Sizes and memory"): with lld, relative
/// relocations packed (DT_RELR, glibc 2.36; they were 910 KB of tables read at every start) and no
/// symbols exported from the executable (nothing loads them; kept, they are GC roots and lookup
/// tables). The daemon's VmRSS with 4 clients went 11.9 -> 11.1 MB.
let releaseLinking: [LinkerSetting] = [
    .unsafeFlags(
        ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"],
        .when(configuration: .release))
]

let package = Package(
    name: "touchrouter",
    products: [
        .executable(name: "touchrouterd", targets: ["touchrouterd"]),
        .executable(name: "touchrouterctl", targets: ["touchrouterctl"]),
        .library(name: "TouchRouterClient", targets: ["TouchRouterClient"]),
    ],
    targets: [
        // C libraries, each behind a modulemap and a one-line header.
        .systemLibrary(name: "CLibinput", pkgConfig: "libinput", providers: [.apt(["libinput-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        // libmtdev: protocol-A multitouch → slots, as libinput decodes such devices (replay only).
        .systemLibrary(name: "CMtdev", pkgConfig: "mtdev", providers: [.apt(["libmtdev-dev"])]),
        // libyaml: the YAML parser `libinput record` files are read with (replay and tests).
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // glibc's epoll, signalfd and timerfd headers, which the Glibc module leaves out.
        .systemLibrary(name: "CLinuxEvents"),
        // <linux/fb.h>'s two framebuffer queries (touchrouterctl calibrate --fbdev).
        .systemLibrary(name: "CLinuxFramebuffer"),

        // The one system layer: file descriptors, typed errno errors (EINTR retried in one place),
        // Unix socket addresses, the monotonic clock, the log level.
        .target(name: "TouchRouterSystem"),

        // The declarative command-line parser, usage and --help of every executable. Pure, no I/O.
        .target(name: "TouchRouterCommandLine"),

        // The model the engine and the wire share: geometry, the layout tree, touch phases and cancel
        // reasons, routed touches, hit results and explanations, the JSON reader. Pure, no I/O.
        .target(name: "TouchRouterModel"),
        // The engine: config, hit-testing, screen mapping, touch tracking. Pure, no I/O.
        .target(name: "TouchRouterCore", dependencies: ["TouchRouterModel"]),
        // Wire messages and line framing over the model only (a client never links the engine). No I/O.
        .target(name: "TouchRouterProtocol", dependencies: ["TouchRouterModel"]),
        // libinput reader, recording readers and replay, uinput injector, the config file reader.
        .target(
            name: "TouchRouterInput",
            dependencies: [
                "TouchRouterCore", "TouchRouterSystem", "CLibinput", "CUdev", "CEvdev", "CMtdev", "CYAML",
            ]),
        // The daemon's glue: epoll loop, sockets, clients, reload, signals, systemd, logging.
        .target(
            name: "TouchRouterDaemon",
            dependencies: [
                "TouchRouterCore", "TouchRouterProtocol", "TouchRouterInput", "TouchRouterSystem", "CLinuxEvents",
                "TouchRouterCommandLine",
            ]),
        // The Swift client library.
        .target(
            name: "TouchRouterClient", dependencies: ["TouchRouterModel", "TouchRouterProtocol", "TouchRouterSystem"]),
        // SVG pictures of a layout and its touches (touchrouterctl render). Pure, off the daemon.
        .target(name: "TouchRouterRender", dependencies: ["TouchRouterCore"]),

        // Thin executables.
        .executableTarget(name: "touchrouterd", dependencies: ["TouchRouterDaemon"], linkerSettings: releaseLinking),
        .executableTarget(
            name: "touchrouterctl",
            dependencies: [
                "TouchRouterCore", "TouchRouterProtocol", "TouchRouterInput", "TouchRouterClient", "TouchRouterSystem",
                "TouchRouterRender", "TouchRouterCommandLine", "CLinuxFramebuffer",
            ],
            linkerSettings: releaseLinking),
        .executableTarget(
            name: "touchrouter-bench",
            dependencies: [
                "TouchRouterCore", "TouchRouterProtocol", "TouchRouterInput", "TouchRouterSystem",
                "TouchRouterCommandLine",
            ]),

        .testTarget(name: "TouchRouterCoreTests", dependencies: ["TouchRouterCore", "TouchRouterModel"]),
        .testTarget(
            name: "TouchRouterProtocolTests",
            dependencies: ["TouchRouterProtocol", "TouchRouterModel", "TouchRouterCore"]),
        .testTarget(name: "TouchRouterCommandLineTests", dependencies: ["TouchRouterCommandLine"]),
        .testTarget(name: "TouchRouterRenderTests", dependencies: ["TouchRouterRender", "TouchRouterCore"]),
        .testTarget(
            name: "TouchRouterInputTests",
            dependencies: ["TouchRouterInput", "TouchRouterCore", "TouchRouterSystem"]),
        .testTarget(
            name: "TouchRouterIntegrationTests",
            dependencies: [
                "TouchRouterCore", "TouchRouterProtocol", "TouchRouterClient", "TouchRouterInput", "TouchRouterSystem",
                "TouchRouterRender", "TouchRouterDaemon", "TouchRouterCommandLine", "touchrouter-bench",
            ]),
    ]
)
