// The C# side of the end-to-end tests: the spec examples, the test handlers with behaviour
// of their own (the other tools' handlers, which only answer with their examples, are
// written by tests/tests/csharp.rs into ExampleHandlers.cs), and a host that serves them
// over the generated bridge. Compiled together with generated/csharp by tests/tests/csharp.rs
// (mcs -langversion:7.2 -warnaserror+) and run under mono.
using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using EditorMcp.Core;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using Toolgen.Bridge;

namespace Toolgen.Tests
{
    /// <summary>The spec examples, loaded from the JSON file the Rust test writes.</summary>
    public static class Examples
    {
        private static JObject all = new JObject();
        private static JsonSerializer serializer = JsonSerializer.Create(new JsonSerializerSettings { NullValueHandling = NullValueHandling.Ignore });

        /// <summary>Loads <c>{"tool.id": [{"input": ..., "output": ...}]}</c>.</summary>
        public static void Load(string path)
        {
            all = JObject.Parse(File.ReadAllText(path));
        }

        /// <summary>
        /// The output of the example whose input agrees with the typed input on the most keys
        /// (every key of the example's input must agree), as the typed output.
        /// </summary>
        public static TOutput Answer<TOutput>(ToolContext context, string id, object input)
        {
            JObject args = JObject.FromObject(input, serializer);
            JArray examples = all[id] as JArray ?? new JArray();
            JToken best = null;
            int bestKeys = -1;
            foreach (JToken example in examples)
            {
                JObject exampleInput = example["input"] as JObject ?? new JObject();
                bool agrees = true;
                foreach (JProperty p in exampleInput.Properties())
                {
                    if (!JToken.DeepEquals(p.Value, args[p.Name]))
                    {
                        agrees = false;
                        break;
                    }
                }
                if (agrees && exampleInput.Count > bestKeys)
                {
                    best = example;
                    bestKeys = exampleInput.Count;
                }
            }
            if (best == null)
            {
                throw ToolException.Execution("no example of " + id + " matches " + args.ToString(Formatting.None));
            }
#if UNITY_EDITOR
            if (Thread.CurrentThread.ManagedThreadId != BridgeHost.MainThreadId)
            {
                throw ToolException.Execution(id + " ran off the editor main thread");
            }
#endif
            context.AddDiagnostic("answered by the C# test handler for " + id);
            return best["output"].ToObject<TOutput>(serializer);
        }
    }

    /// <summary>Test handler of <c>asset.info</c>.</summary>
    public sealed class AssetInfoTest : AssetInfo.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override AssetInfo.Output Execute(ToolContext context, AssetInfo.Input input)
        {
            if (input.AssetPath == "Assets/Throw.bin")
            {
                throw new InvalidOperationException("the asset database is locked");
            }
            if (input.AssetPath == "Assets/Hang.bin")
            {
                Thread.Sleep(3000);
            }
            if (input.AssetPath == "Assets/Capture.png")
            {
                // The example's answer, with the asset's preview as an image after it,
                // and word of it on the way.
                context.ReportProgress(1, 2, "preview read");
                context.Log("info", new JObject(new JProperty("preview", "Assets/Capture.png")));
                context.AddImage(new byte[] { 0x89, 0x50, 0x4E, 0x47 }, "image/png");
                input.AssetPath = "Assets/Textures/Logo.png";
            }
            if (input.AssetPath == "Assets/Denied.bin")
            {
                JObject details = new JObject();
                details["assetPath"] = input.AssetPath;
                throw new ToolException(ErrorCodes.ToolExecution, "execution", "asset is locked by version control", details);
            }
            return Examples.Answer<AssetInfo.Output>(context, AssetInfo.Id, input);
        }
    }

    /// <summary>Serves the test handlers: <c>bridge-host.exe EXAMPLES.json [PORT [PROJECT]]</c> (with a project, its bridge secret is required).</summary>
    public static class BridgeHost
    {
        /// <summary>The thread that plays the Unity Editor's main thread.</summary>
        public static int MainThreadId;

#if UNITY_EDITOR
        private static volatile bool inputClosed;
        private static volatile int reloadMillis = -1;
#endif

        /// <summary>A started bridge on <paramref name="port"/> (0: any), as the editor code starts it.</summary>
        private static BridgeServer NewBridge(ToolDispatcher dispatcher, int port, string secret)
        {
            BridgeServer bridge = new BridgeServer(dispatcher, port);
            bridge.CatalogHash = EditormcpTools.CatalogHash;
            bridge.Secret = secret;
            bridge.Start();
            return bridge;
        }

        /// <summary>Prints <c>listening on PORT</c>, then serves until standard input closes.</summary>
        public static int Main(string[] args)
        {
            if (args.Length < 1)
            {
                Console.Error.WriteLine("usage: bridge-host.exe EXAMPLES.json [PORT [PROJECT]]");
                return 2;
            }
            MainThreadId = Thread.CurrentThread.ManagedThreadId;
#if UNITY_EDITOR
            // TOOLGEN_TEST_UNFOCUSED=1: the editor is in the background from the start, its
            // update loop idle unless the bridge asks for an update.
            UnityEditor.EditorApplication.Focused = Environment.GetEnvironmentVariable("TOOLGEN_TEST_UNFOCUSED") != "1";
#endif
            Examples.Load(args[0]);
            int port = args.Length > 1 ? int.Parse(args[1]) : 0;
            ToolDispatcher dispatcher = new ToolDispatcher(EditormcpTools.Specs);
            int registered = dispatcher.RegisterAssembly(typeof(BridgeHost).Assembly);
            IList<string> missing = dispatcher.MissingHandlers();
            if (missing.Count > 0)
            {
                Console.Error.WriteLine("handlers missing for: " + string.Join(", ", new List<string>(missing).ToArray()));
                return 1;
            }
            string secret = args.Length > 2 ? BridgeSecret.LoadOrCreate(args[2]) : null;
            BridgeServer bridge = NewBridge(dispatcher, port, secret);
            try
            {
                Console.WriteLine("listening on " + bridge.Port + " with " + registered + " handlers");
                Console.Out.Flush();
#if UNITY_EDITOR
                // Play the editor: run EditorApplication.update on this (main) thread until
                // standard input closes. A line `reload MS` plays a domain reload: between two
                // updates, as Unity does, the reload event (the bridge stops), MS milliseconds
                // with no bridge, then a new one on the same port (as [InitializeOnLoad] code
                // starts it again).
                Thread input = new Thread(() =>
                {
                    string line;
                    while ((line = Console.In.ReadLine()) != null)
                    {
                        if (line.StartsWith("reload ", StringComparison.Ordinal))
                        {
                            reloadMillis = int.Parse(line.Substring(7));
                        }
                    }
                    inputClosed = true;
                });
                input.IsBackground = true;
                input.Start();
                while (!inputClosed)
                {
                    UnityEditor.EditorApplication.Tick();
                    int pause = reloadMillis;
                    if (pause >= 0)
                    {
                        reloadMillis = -1;
                        int samePort = bridge.Port;
                        UnityEditor.AssemblyReloadEvents.Reload();
                        Thread.Sleep(pause);
                        bridge = NewBridge(dispatcher, samePort, secret);
                    }
                    Thread.Sleep(1);
                }
#else
                Console.In.ReadToEnd();
#endif
            }
            finally
            {
                bridge.Dispose();
            }
            return 0;
        }
    }
}
