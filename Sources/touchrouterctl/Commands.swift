/// Every command of touchrouterctl, in the order `--help` lists them.
/// To add a command: write a type conforming to `Command` in its own file and add it here.
let allCommands: [any Command.Type] = [
    ValidateCommand.self,
    HitTestCommand.self,
    ExplainCommand.self,
    RenderCommand.self,
    MonitorCommand.self,
    StatusCommand.self,
    MetricsCommand.self,
    ScreenCommand.self,
    CalibrateCommand.self,
    LayoutCommand.self,
    SetCommand.self,
    MountCommand.self,
    UnmountCommand.self,
    InjectCommand.self,
    InputEventsCommand.self,
    TranscriptDiffCommand.self,
]
