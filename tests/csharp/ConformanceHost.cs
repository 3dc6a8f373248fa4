// The conformance tools (tool-specs/conformance) implemented in C#, as a Unity project would
// implement them, served over the generated bridge: `conformance-host.exe [PORT]` prints
// `listening on PORT`, then serves until standard input closes. `cargo xtask conformance`
// compiles it with generated/csharp and the bridge package (mcs -langversion:7.2), runs it
// under mono, and runs the suite's tool scenarios against `conformance-server --bridge`.
// Each handler answers as the Rust one in runtime/conformance-server does.
using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using Toolgen.Bridge;

namespace Toolgen.Conformance.Host
{
    /// <summary>What the handlers share: the media they send, and how they answer.</summary>
    internal static class Answer
    {
        /// <summary>A PNG of one red pixel.</summary>
        public static readonly byte[] Png = Convert.FromBase64String(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR42mNoAAAAggCB2kUIOwAAAABJRU5ErkJggg==");

        /// <summary>A WAV of eight silent 8-bit samples at 8 kHz.</summary>
        public static byte[] Wav()
        {
            MemoryStream m = new MemoryStream();
            BinaryWriter w = new BinaryWriter(m);
            w.Write(new[] { (byte)'R', (byte)'I', (byte)'F', (byte)'F' });
            w.Write(36 + 8);
            w.Write(new[] { (byte)'W', (byte)'A', (byte)'V', (byte)'E', (byte)'f', (byte)'m', (byte)'t', (byte)' ' });
            w.Write(16);
            w.Write((short)1); // PCM
            w.Write((short)1); // mono
            w.Write(8000);
            w.Write(8000); // bytes per second
            w.Write((short)1); // block align
            w.Write((short)8); // bits per sample
            w.Write(new[] { (byte)'d', (byte)'a', (byte)'t', (byte)'a' });
            w.Write(8);
            for (int i = 0; i < 8; i++)
            {
                w.Write((byte)0x80);
            }
            w.Flush();
            return m.ToArray();
        }

        /// <summary>A result of content alone: the output is null, the blocks are the context's.</summary>
        public static JToken Text(ToolContext context, string text)
        {
            context.AddText(text);
            return JValue.CreateNull();
        }

        /// <summary>What an elicitation gave, as the tool's text.</summary>
        public static JToken Elicited(ToolContext context, Elicitation answer)
        {
            if (answer.Accepted)
            {
                string content = (answer.Content ?? new JObject()).ToString(Formatting.None);
                return Text(context, "User response: action=accept, content=" + content);
            }
            return Text(context, "User response: action=" + answer.Action);
        }

        /// <summary>The schema of a property: its type and the members after it.</summary>
        public static JObject Property(string type, params object[] members)
        {
            JObject p = new JObject(members);
            p.AddFirst(new JProperty("type", type));
            return p;
        }

        /// <summary>A form of <paramref name="properties"/>.</summary>
        public static JObject Form(JObject properties, params string[] required)
        {
            JObject schema = new JObject();
            schema["type"] = "object";
            schema["properties"] = properties;
            if (required.Length > 0)
            {
                schema["required"] = new JArray(required);
            }
            return schema;
        }
    }

    public sealed class SimpleText : TestSimpleText.Handler
    {
        public override JToken Execute(ToolContext context, TestSimpleText.Input input)
        {
            return Answer.Text(context, "This is a simple text response for testing.");
        }
    }

    public sealed class ImageContent : TestImageContent.Handler
    {
        public override JToken Execute(ToolContext context, TestImageContent.Input input)
        {
            context.AddImage(Answer.Png, "image/png");
            return JValue.CreateNull();
        }
    }

    public sealed class AudioContent : TestAudioContent.Handler
    {
        public override JToken Execute(ToolContext context, TestAudioContent.Input input)
        {
            context.AddAudio(Answer.Wav(), "audio/wav");
            return JValue.CreateNull();
        }
    }

    public sealed class EmbeddedResource : TestEmbeddedResource.Handler
    {
        public override JToken Execute(ToolContext context, TestEmbeddedResource.Input input)
        {
            context.AddResourceText("test://embedded-resource", "text/plain", "This is an embedded resource content.");
            return JValue.CreateNull();
        }
    }

    public sealed class MultipleContentTypes : TestMultipleContentTypes.Handler
    {
        public override JToken Execute(ToolContext context, TestMultipleContentTypes.Input input)
        {
            context.AddText("Multiple content types test:");
            context.AddImage(Answer.Png, "image/png");
            JObject data = new JObject(new JProperty("test", "data"), new JProperty("value", 123));
            context.AddResourceText("test://mixed-content-resource", "application/json", data.ToString(Formatting.None));
            return JValue.CreateNull();
        }
    }

    public sealed class WithLogging : TestToolWithLogging.Handler
    {
        public override JToken Execute(ToolContext context, TestToolWithLogging.Input input)
        {
            context.Log("info", "Tool execution started");
            Thread.Sleep(50);
            context.Log("info", "Tool processing data");
            Thread.Sleep(50);
            context.Log("info", "Tool execution completed");
            return Answer.Text(context, "Tool with logging executed successfully");
        }
    }

    public sealed class WithProgress : TestToolWithProgress.Handler
    {
        public override JToken Execute(ToolContext context, TestToolWithProgress.Input input)
        {
            double[] steps = { 0, 50, 100 };
            for (int i = 0; i < steps.Length; i++)
            {
                if (i > 0)
                {
                    Thread.Sleep(50);
                }
                context.ReportProgress(steps[i], 100, null);
            }
            return Answer.Text(context, "Tool with progress executed successfully");
        }
    }

    public sealed class ErrorHandling : TestErrorHandling.Handler
    {
        public override JToken Execute(ToolContext context, TestErrorHandling.Input input)
        {
            throw ToolException.Execution("This tool intentionally returns an error for testing");
        }
    }

    public sealed class Sampling : TestSampling.Handler
    {
        public override JToken Execute(ToolContext context, TestSampling.Input input)
        {
            Sampled answer = context.Sample(input.Prompt, 100);
            if (answer.Text == null)
            {
                throw ToolException.Execution("the model answered without text: " + answer.Content.ToString(Formatting.None));
            }
            return Answer.Text(context, "LLM response: " + answer.Text);
        }
    }

    public sealed class FormElicitation : TestElicitation.Handler
    {
        public override JToken Execute(ToolContext context, TestElicitation.Input input)
        {
            JObject properties = new JObject(
                new JProperty("username", Answer.Property("string", new JProperty("description", "User's response"))),
                new JProperty("email", Answer.Property("string", new JProperty("description", "User's email address"))));
            return Answer.Elicited(context, context.Elicit(input.Message, Answer.Form(properties, "username", "email")));
        }
    }

    public sealed class UrlElicitation : TestElicitationUrl.Handler
    {
        public override JToken Execute(ToolContext context, TestElicitationUrl.Input input)
        {
            const string id = "conformance-url-1";
            Elicitation answer = context.ElicitUrl("Open this page to authorize.", input.Url, id);
            if (answer.Accepted)
            {
                context.ElicitationComplete(id);
            }
            return Answer.Elicited(context, answer);
        }
    }

    public sealed class Defaults : TestElicitationSep1034Defaults.Handler
    {
        public override JToken Execute(ToolContext context, TestElicitationSep1034Defaults.Input input)
        {
            JObject properties = new JObject(
                new JProperty("name", Answer.Property("string", new JProperty("default", "John Doe"))),
                new JProperty("age", Answer.Property("integer", new JProperty("default", 30))),
                new JProperty("score", Answer.Property("number", new JProperty("default", 95.5))),
                new JProperty("status", Answer.Property("string",
                    new JProperty("enum", new JArray("active", "inactive", "pending")),
                    new JProperty("default", "active"))),
                new JProperty("verified", Answer.Property("boolean", new JProperty("default", true))));
            Elicitation answer = context.Elicit("Please review and update the form fields with defaults", Answer.Form(properties));
            return Answer.Elicited(context, answer);
        }
    }

    public sealed class Enums : TestElicitationSep1330Enums.Handler
    {
        public override JToken Execute(ToolContext context, TestElicitationSep1330Enums.Input input)
        {
            Func<JArray> options = () => new JArray("option1", "option2", "option3");
            Func<JArray> titled = () => new JArray(
                new JObject(new JProperty("const", "value1"), new JProperty("title", "First Option")),
                new JObject(new JProperty("const", "value2"), new JProperty("title", "Second Option")),
                new JObject(new JProperty("const", "value3"), new JProperty("title", "Third Option")));
            JObject properties = new JObject(
                new JProperty("untitledSingle", Answer.Property("string", new JProperty("enum", options()))),
                new JProperty("titledSingle", Answer.Property("string", new JProperty("oneOf", titled()))),
                new JProperty("legacyEnum", Answer.Property("string",
                    new JProperty("enum", options()),
                    new JProperty("enumNames", new JArray("Option One", "Option Two", "Option Three")))),
                new JProperty("untitledMulti", Answer.Property("array",
                    new JProperty("items", Answer.Property("string", new JProperty("enum", options()))))),
                new JProperty("titledMulti", Answer.Property("array",
                    new JProperty("items", new JObject(new JProperty("anyOf", titled()))))));
            Elicitation answer = context.Elicit("Please select options from the enum fields", Answer.Form(properties));
            return Answer.Elicited(context, answer);
        }
    }

    public sealed class SchemaTool : JsonSchema202012Tool.Handler
    {
        public override JToken Execute(ToolContext context, JsonSchema202012Tool.Input input)
        {
            return Answer.Text(context, "Received name: " + (input.Name ?? ""));
        }
    }

    /// <summary>Serves the handlers: <c>conformance-host.exe [PORT]</c>.</summary>
    public static class ConformanceHost
    {
        /// <summary>Prints <c>listening on PORT</c>, then serves until standard input closes.</summary>
        public static int Main(string[] args)
        {
            int port = args.Length > 0 ? int.Parse(args[0]) : 0;
            ToolDispatcher dispatcher = new ToolDispatcher(ConformanceTools.Specs);
            dispatcher.RegisterAssembly(typeof(ConformanceHost).Assembly);
            IList<string> missing = dispatcher.MissingHandlers();
            if (missing.Count > 0)
            {
                Console.Error.WriteLine("handlers missing for: " + string.Join(", ", new List<string>(missing).ToArray()));
                return 1;
            }
            using (BridgeServer bridge = new BridgeServer(dispatcher, port))
            {
                bridge.CatalogHash = ConformanceTools.CatalogHash;
                bridge.Start();
                Console.WriteLine("listening on " + bridge.Port);
                Console.Out.Flush();
                Console.In.ReadToEnd();
            }
            return 0;
        }
    }
}
