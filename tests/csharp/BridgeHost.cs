// Test implementations of every EditorMCP handler, and a host that serves them over the
// generated bridge. Compiled together with generated/csharp by tests/tests/csharp.rs
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

    /// <summary>Test handler of <c>asset.dependencies.graph</c>.</summary>
    public sealed class AssetDependenciesGraphTest : AssetDependenciesGraph.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override AssetDependenciesGraph.Output Execute(ToolContext context, AssetDependenciesGraph.Input input)
        {
            return Examples.Answer<AssetDependenciesGraph.Output>(context, AssetDependenciesGraph.Id, input);
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
            if (input.AssetPath == "Assets/Denied.bin")
            {
                JObject details = new JObject();
                details["assetPath"] = input.AssetPath;
                throw new ToolException(ErrorCodes.ToolExecution, "execution", "asset is locked by version control", details);
            }
            return Examples.Answer<AssetInfo.Output>(context, AssetInfo.Id, input);
        }
    }

    /// <summary>Test handler of <c>audio.mixer.list</c>.</summary>
    public sealed class AudioMixerListTest : AudioMixerList.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override AudioMixerList.Output Execute(ToolContext context, AudioMixerList.Input input)
        {
            return Examples.Answer<AudioMixerList.Output>(context, AudioMixerList.Id, input);
        }
    }

    /// <summary>Test handler of <c>audio.mixer.snapshot.read</c>.</summary>
    public sealed class AudioMixerSnapshotReadTest : AudioMixerSnapshotRead.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override AudioMixerSnapshotRead.Output Execute(ToolContext context, AudioMixerSnapshotRead.Input input)
        {
            return Examples.Answer<AudioMixerSnapshotRead.Output>(context, AudioMixerSnapshotRead.Id, input);
        }
    }

    /// <summary>Test handler of <c>component.list</c>.</summary>
    public sealed class ComponentListTest : ComponentList.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override ComponentList.Output Execute(ToolContext context, ComponentList.Input input)
        {
            return Examples.Answer<ComponentList.Output>(context, ComponentList.Id, input);
        }
    }

    /// <summary>Test handler of <c>editor.selection.info</c>.</summary>
    public sealed class EditorSelectionInfoTest : EditorSelectionInfo.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override EditorSelectionInfo.Output Execute(ToolContext context, EditorSelectionInfo.Input input)
        {
            return Examples.Answer<EditorSelectionInfo.Output>(context, EditorSelectionInfo.Id, input);
        }
    }

    /// <summary>Test handler of <c>go.find</c>.</summary>
    public sealed class GoFindTest : GoFind.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override GoFind.Output Execute(ToolContext context, GoFind.Input input)
        {
            return Examples.Answer<GoFind.Output>(context, GoFind.Id, input);
        }
    }

    /// <summary>Test handler of <c>go.setParent</c>.</summary>
    public sealed class GoSetParentTest : GoSetParent.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override GoSetParent.Output Execute(ToolContext context, GoSetParent.Input input)
        {
            return Examples.Answer<GoSetParent.Output>(context, GoSetParent.Id, input);
        }
    }

    /// <summary>Test handler of <c>mcp.server.info</c>.</summary>
    public sealed class McpServerInfoTest : McpServerInfo.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override McpServerInfo.Output Execute(ToolContext context, McpServerInfo.Input input)
        {
            return Examples.Answer<McpServerInfo.Output>(context, McpServerInfo.Id, input);
        }
    }

    /// <summary>Test handler of <c>mcp.tool.describe</c>.</summary>
    public sealed class McpToolDescribeTest : McpToolDescribe.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override McpToolDescribe.Output Execute(ToolContext context, McpToolDescribe.Input input)
        {
            return Examples.Answer<McpToolDescribe.Output>(context, McpToolDescribe.Id, input);
        }
    }

    /// <summary>Test handler of <c>mcp.tools.list</c>.</summary>
    public sealed class McpToolsListTest : McpToolsList.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override McpToolsList.Output Execute(ToolContext context, McpToolsList.Input input)
        {
            return Examples.Answer<McpToolsList.Output>(context, McpToolsList.Id, input);
        }
    }

    /// <summary>Test handler of <c>project.assets.summary</c>.</summary>
    public sealed class ProjectAssetsSummaryTest : ProjectAssetsSummary.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override ProjectAssetsSummary.Output Execute(ToolContext context, ProjectAssetsSummary.Input input)
        {
            return Examples.Answer<ProjectAssetsSummary.Output>(context, ProjectAssetsSummary.Id, input);
        }
    }

    /// <summary>Test handler of <c>project.info</c>.</summary>
    public sealed class ProjectInfoTest : ProjectInfo.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override ProjectInfo.Output Execute(ToolContext context, ProjectInfo.Input input)
        {
            return Examples.Answer<ProjectInfo.Output>(context, ProjectInfo.Id, input);
        }
    }

    /// <summary>Test handler of <c>project.references.missing</c>.</summary>
    public sealed class ProjectReferencesMissingTest : ProjectReferencesMissing.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override ProjectReferencesMissing.Output Execute(ToolContext context, ProjectReferencesMissing.Input input)
        {
            return Examples.Answer<ProjectReferencesMissing.Output>(context, ProjectReferencesMissing.Id, input);
        }
    }

    /// <summary>Test handler of <c>project.scenes.list</c>.</summary>
    public sealed class ProjectScenesListTest : ProjectScenesList.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override ProjectScenesList.Output Execute(ToolContext context, ProjectScenesList.Input input)
        {
            return Examples.Answer<ProjectScenesList.Output>(context, ProjectScenesList.Id, input);
        }
    }

    /// <summary>Test handler of <c>scene.components.list</c>.</summary>
    public sealed class SceneComponentsListTest : SceneComponentsList.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override SceneComponentsList.Output Execute(ToolContext context, SceneComponentsList.Input input)
        {
            return Examples.Answer<SceneComponentsList.Output>(context, SceneComponentsList.Id, input);
        }
    }

    /// <summary>Test handler of <c>scene.hierarchy.dump</c>.</summary>
    public sealed class SceneHierarchyDumpTest : SceneHierarchyDump.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override SceneHierarchyDump.Output Execute(ToolContext context, SceneHierarchyDump.Input input)
        {
            return Examples.Answer<SceneHierarchyDump.Output>(context, SceneHierarchyDump.Id, input);
        }
    }

    /// <summary>Test handler of <c>scene.objects.find</c>.</summary>
    public sealed class SceneObjectsFindTest : SceneObjectsFind.Handler
    {
        /// <summary>Answers with the matching spec example.</summary>
        public override SceneObjectsFind.Output Execute(ToolContext context, SceneObjectsFind.Input input)
        {
            return Examples.Answer<SceneObjectsFind.Output>(context, SceneObjectsFind.Id, input);
        }
    }

    /// <summary>Serves the test handlers: <c>bridge-host.exe EXAMPLES.json [PORT]</c>.</summary>
    public static class BridgeHost
    {
        /// <summary>The thread that plays the Unity Editor's main thread.</summary>
        public static int MainThreadId;

#if UNITY_EDITOR
        private static volatile bool inputClosed;
#endif

        /// <summary>Prints <c>listening on PORT</c>, then serves until standard input closes.</summary>
        public static int Main(string[] args)
        {
            if (args.Length < 1)
            {
                Console.Error.WriteLine("usage: bridge-host.exe EXAMPLES.json [PORT]");
                return 2;
            }
            MainThreadId = Thread.CurrentThread.ManagedThreadId;
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
            using (BridgeServer bridge = new BridgeServer(dispatcher, port))
            {
                bridge.Start();
                Console.WriteLine("listening on " + bridge.Port + " with " + registered + " handlers");
                Console.Out.Flush();
#if UNITY_EDITOR
                // Play the editor: run EditorApplication.update on this (main) thread
                // until standard input closes.
                Thread input = new Thread(() =>
                {
                    Console.In.ReadToEnd();
                    inputClosed = true;
                });
                input.IsBackground = true;
                input.Start();
                while (!inputClosed)
                {
                    UnityEditor.EditorApplication.Tick();
                    Thread.Sleep(1);
                }
#else
                Console.In.ReadToEnd();
#endif
            }
            return 0;
        }
    }
}
