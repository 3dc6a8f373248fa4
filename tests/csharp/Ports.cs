// Ports of Unity projects, from the C# side, for tests/tests/csharp.rs:
//   ports.exe PATH...      prints the bridge port of each project path, one per line
//   ports.exe --bind P...  starts a bridge for each project path, prints each port, then
//                          starts a second bridge on the first one's port and prints the error
using System;
using System.Collections.Generic;
using Toolgen.Bridge;

namespace Toolgen.Tests
{
    /// <summary>Prints bridge ports as the C# side derives them.</summary>
    public static class Ports
    {
        /// <summary>See the file's header.</summary>
        public static int Main(string[] args)
        {
            if (args.Length > 0 && args[0] == "--bind")
            {
                List<BridgeServer> bridges = new List<BridgeServer>();
                for (int i = 1; i < args.Length; i++)
                {
                    BridgeServer b = new BridgeServer(new ToolDispatcher(new ToolSpec[0]), BridgePort.ForProject(args[i]));
                    b.Start();
                    bridges.Add(b);
                    Console.WriteLine("listening " + b.Port);
                }
                try
                {
                    new BridgeServer(new ToolDispatcher(new ToolSpec[0]), bridges[0].Port).Start();
                    Console.WriteLine("second bridge started");
                }
                catch (InvalidOperationException e)
                {
                    Console.WriteLine("refused " + e.Message);
                }
                foreach (BridgeServer b in bridges)
                {
                    b.Dispose();
                }
                return 0;
            }
            foreach (string path in args)
            {
                Console.WriteLine(BridgePort.ForProject(path));
            }
            return 0;
        }
    }
}
