/// Placeholder until the input issue lands its reader.
import TouchRouterCore
